package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipListener;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Leader election on Spring Boot's other client: two instances whose connection factories are Jedis's, a 1 s lease. */
class LeaderElectionOnJedisTest {

    private final LockerFixture first = LockerFixture.connectJedis(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
    private final LockerFixture second = LockerFixture.connectJedis(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
    private final LockerLeaderElection firstElection = new LockerLeaderElection(first.locker);
    private final LockerLeaderElection secondElection = new LockerLeaderElection(second.locker);
    private final String role = "jedis-role-" + UUID.randomUUID();
    private final BlockingQueue<String> heard = new LinkedBlockingQueue<>();

    @AfterEach
    void close() {
        firstElection.close();
        secondElection.close();
        first.close();
        second.close();
    }

    @Test
    void aLeaderKeepsItsRolePastTheLeaseAndHandsItToTheWaitingCandidateWhenItStops() throws Exception {
        Candidacy leader = firstElection.join(role, listener("first"));
        assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("first granted");
        Candidacy follower = secondElection.join(role, listener("second"));
        await().atMost(Duration.ofSeconds(5)).until(() -> second.locker.waiterCount() == 1);

        Thread.sleep(2500); // past two leases: the watchdog renews the role
        assertThat(leader.isLeader()).isTrue();
        assertThat(follower.isLeader()).isFalse();

        firstElection.stop();
        assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("first revoked");
        assertThat(heard.poll(1, TimeUnit.SECONDS)).as("handed on, not found at the lease's end").isEqualTo("second granted");
        firstElection.start();
        await().atMost(Duration.ofSeconds(5)).until(() -> first.locker.waiterCount() == 1);
        secondElection.stop();
        assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo("second revoked");
        assertThat(heard.poll(1, TimeUnit.SECONDS)).as("led again after start()").isEqualTo("first granted");
        assertThat(leader.isLeader()).isTrue();
    }

    private LeadershipListener listener(String instance) {
        return new LeadershipListener() {
            @Override
            public void granted(Candidacy candidacy, long term) {
                heard.add(instance + " granted");
            }

            @Override
            public void revoked(Candidacy candidacy, long term, String reason) {
                heard.add(instance + " revoked");
            }
        };
    }
}
