package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;

import io.github.redislock.Candidacy;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * A closed Locker takes no lock any more, so a candidacy on it could never lead: the join is refused naming the role
 * and the closed Locker, and a candidacy whose Locker closes under it ends instead of retrying every half second for
 * as long as the process lives.
 */
class CandidacyOnAClosedLockerTest {

    private final String role = "role-" + UUID.randomUUID();

    @Test
    void aJoinOnAClosedLockerIsRefusedNamingTheRole() {
        LockerFixture instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
        instance.close();
        try (LockerLeaderElection election = new LockerLeaderElection(instance.locker)) {
            assertThatThrownBy(() -> election.join(role, LeaseInDoubtAcrossWallClockStepsTest.grantsTo(new CountDownLatch(1))))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("'" + role + "'").hasMessageContaining("Locker is closed");
        }
    }

    @Test
    void aCandidacyWaitingOnALockerThatClosesEnds() throws Exception {
        try (LockerFixture holder = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1))) {
            LockerFixture instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
            assertThat(holder.locker.tryLock(role)).isTrue();
            try (LockerLeaderElection election = new LockerLeaderElection(instance.locker)) {
                Candidacy candidacy = election.join(role, LeaseInDoubtAcrossWallClockStepsTest.grantsTo(new CountDownLatch(1)));
                await().atMost(Duration.ofSeconds(5)).until(() -> instance.locker.waiterCount() == 1);
                instance.close();

                await().atMost(Duration.ofSeconds(5)).alias("the candidacy's thread ended").until(() -> candidacyThreads() == 0);
                assertThat(candidacy.isLeader()).isFalse();
            } finally {
                holder.locker.unlock(role);
            }
        }
    }

    private long candidacyThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(thread -> thread.getName().equals("redis-lock-leader-" + role)).count();
    }
}
