package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipListener;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.SteppedWallClock;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * A leader's lease is in doubt after two thirds of it without a renewal, however the wall clock moves:
 * an NTP step or an operator's {@code date -s} between a renewal and the leader's check must neither keep
 * a cut-off leader leading past its lease nor revoke a healthy one.
 *
 * <p>The step is played through the Locker's watchdog view ({@link SteppedWallClock}).
 */
class LeaseInDoubtAcrossWallClockStepsTest {

    private static final Duration LEASE = Duration.ofSeconds(1);
    private static final Duration AN_HOUR = Duration.ofHours(1);

    private final String role = "role-" + UUID.randomUUID();

    @Test
    void aLeaderCutOffFromRedisIsInDoubtWithinItsLeaseThoughTheWallClockWasSteppedBack() throws Exception {
        try (RedisServerProcess server = TestRedis.startNew();
             LockerFixture instance = LockerFixture.connect(server.host(), server.port(), LEASE)) {
            LockerLeaderElection election = new LockerLeaderElection(key -> SteppedWallClock.locker(instance.locker, AN_HOUR.negated()), event -> {
            });
            try {
                CountDownLatch granted = new CountDownLatch(1);
                Candidacy leader = election.join(role, grantsTo(granted));
                assertThat(granted.await(5, TimeUnit.SECONDS)).as("granted").isTrue();
                await().atMost(LEASE).until(() -> instance.locker.watchdogState().lastRenewal() != null);

                server.pause(); // no renewal succeeds from now on
                try {
                    await().atMost(LEASE.multipliedBy(2)).pollInterval(Duration.ofMillis(10))
                            .alias("in doubt after two thirds of the lease without a renewal, the wall clock an hour back")
                            .until(() -> !leader.isLeader());
                } finally {
                    server.resume();
                }
            } finally {
                election.close();
            }
        }
    }

    @Test
    void aLeaderWhoseRenewalsSucceedStaysLeaderThoughTheWallClockWasSteppedForward() throws Exception {
        try (LockerFixture instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), LEASE)) {
            LockerLeaderElection election = new LockerLeaderElection(key -> SteppedWallClock.locker(instance.locker, AN_HOUR), event -> {
            });
            try {
                CountDownLatch granted = new CountDownLatch(1);
                Candidacy leader = election.join(role, grantsTo(granted));
                assertThat(granted.await(5, TimeUnit.SECONDS)).as("granted").isTrue();

                long until = System.nanoTime() + LEASE.toNanos(); // three renewal ticks
                int notLeaderReads = 0;
                while (System.nanoTime() < until) {
                    if (!leader.isLeader()) {
                        notLeaderReads++;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                }

                assertThat(notLeaderReads).as("reads of isLeader() false while every renewal succeeded, the wall clock an hour ahead").isZero();
                assertThat(instance.locker.watchdogState().consecutiveFailures()).isZero();
            } finally {
                election.close();
            }
        }
    }

    static LeadershipListener grantsTo(CountDownLatch granted) {
        return new LeadershipListener() {
            @Override
            public void granted(Candidacy candidacy, long term) {
                granted.countDown();
            }

            @Override
            public void revoked(Candidacy candidacy, long term, String reason) {
            }
        };
    }
}
