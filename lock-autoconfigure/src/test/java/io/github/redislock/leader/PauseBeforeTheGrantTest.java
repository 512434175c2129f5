package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipListener;
import io.github.redislock.Locker;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * A candidate paused after Redis gave it the role's lock and before it was granted the role (a GC pause,
 * a SIGSTOP of the process, a frozen VM) may resume past the lock's lease, with the lock another
 * instance's already. It must not lead on it: never granted, never reading as leader while the other
 * instance holds the role. The pause is played by stopping Redis (its clock runs on, the lease runs out)
 * as the candidate's lock attempt returns, and letting another instance take the expired lock then.
 */
class PauseBeforeTheGrantTest {

    private static final Duration LEASE = Duration.ofMillis(900);
    /** The other instance's owner token: it takes the role on the candidate's thread, in the middle of its lock attempt. */
    private static final String OTHER_INSTANCE = "other-instance";

    /** How long the candidate is watched once the other instance took the role: its re-entry check and release come in it. */
    private static final Duration WATCHED_AFTER = Duration.ofSeconds(2);
    /** The latest the lock attempt, the pause and the other instance's attempt may end after the join, on a loaded machine. */
    private static final Duration SCENARIO_WITHIN = Duration.ofSeconds(30);

    private final String role = "role-" + UUID.randomUUID();

    @Test
    void aCandidatePausedPastItsLeaseBeforeTheGrantNeverLeadsWhileAnotherInstanceHoldsTheRole() throws Exception {
        try (RedisServerProcess server = TestRedis.startNew();
             LockerFixture candidate = LockerFixture.connect(server.host(), server.port(), LEASE);
             LockerFixture other = LockerFixture.connect(server.host(), server.port(), LEASE)) {
            AtomicBoolean otherHolds = new AtomicBoolean();
            CountDownLatch otherTried = new CountDownLatch(1);
            Locker pausedAsItAcquires = WatchedLocker.of(candidate.locker, call -> {
            }, () -> {
                server.pause();
                LockSupport.parkNanos(LEASE.plusMillis(200).toNanos()); // the scenario itself: the lease runs out during the pause
                server.resume();
                try {
                    otherHolds.set(other.locker.tryLockAs(OTHER_INSTANCE, role, 0, 10_000, TimeUnit.MILLISECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    otherTried.countDown();
                }
            });
            LockerLeaderElection election = new LockerLeaderElection(key -> pausedAsItAcquires, event -> {
            });
            AtomicInteger leaderReadsWhileTheOtherHolds = new AtomicInteger();
            CountDownLatch granted = new CountDownLatch(1);
            try {
                Candidacy candidacy = election.join(role, new LeadershipListener() {
                    @Override
                    public void granted(Candidacy leader, long term) {
                        granted.countDown();
                        if (otherHolds.get() && leader.isLeader()) {
                            leaderReadsWhileTheOtherHolds.incrementAndGet();
                        }
                    }

                    @Override
                    public void revoked(Candidacy leader, long term, String reason) {
                    }
                });
                // Watched from the join until WATCHED_AFTER past the other instance's attempt, however late a
                // loaded machine lets the candidate's acquisition, the pause and that attempt come.
                long giveUpAt = System.nanoTime() + SCENARIO_WITHIN.toNanos();
                long until = Long.MAX_VALUE;
                while (until == Long.MAX_VALUE ? System.nanoTime() - giveUpAt < 0 : System.nanoTime() - until < 0) {
                    if (otherHolds.get() && candidacy.isLeader()) {
                        leaderReadsWhileTheOtherHolds.incrementAndGet();
                    }
                    if (until == Long.MAX_VALUE && otherTried.getCount() == 0) {
                        until = System.nanoTime() + WATCHED_AFTER.toNanos();
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }

                assertThat(otherTried.getCount()).as("the pause and the other instance's attempt came within %s of the join", SCENARIO_WITHIN).isZero();
                assertThat(otherHolds).as("the other instance took the expired lock").isTrue();
                assertThat(leaderReadsWhileTheOtherHolds).as("reads of isLeader() true while the other instance held the role").hasValue(0);
                assertThat(granted.getCount()).as("never granted while the other instance holds the role").isEqualTo(1);
            } finally {
                election.close();
                if (otherHolds.get()) {
                    other.locker.unlockAs(OTHER_INSTANCE, role);
                }
            }
        }
    }
}
