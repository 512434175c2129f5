package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.Candidacy;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisLock;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A watchdog tick that renewed the leader's own lock stays a renewal for the leader's lease clock though other
 * locks of the same tick went without renewal (a hung Cluster master, a refused call): the leader's lease runs
 * from that tick's send, so it does not read as in doubt.
 *
 * <p>The partial failure is made as in {@code PartlyFailedRenewalCountsTest}: once the role is held, an ACL lets
 * the Locker's user reach the role's keys only, so every tick renews the role's lock in one script call and fails
 * another lock's (a read lock of the same Locker).
 *
 * <p>Fails on 3a27e4b: "reads of isLeader() false while every tick renewed the leader's lock, Expected 0 but was
 * 336" (from about two thirds of the lease on): the leader read its lease from the watchdog's last tick that renewed
 * every lock. It now reads the send time of the last tick that renewed its role's lock.
 */
class LeaseAfterAPartlyFailedTickTest {

    private static final Duration LEASE = Duration.ofMillis(1500);

    private final String id = UUID.randomUUID().toString();
    private final String role = "role-" + id;

    @Test
    void aLeaderWhoseOwnLockEveryTickRenewsStaysLeaderWhileAnotherLockGoesWithoutRenewal() throws Exception {
        try (RedisServerProcess redis = TestRedis.startNew()) {
            LettuceConnectionFactory factory = LockerFixture.startedLettuceAsAclUser(redis);
            try (RedisLocker locker = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(LEASE).build()) {
                LockerLeaderElection election = new LockerLeaderElection(locker);
                try {
                    CountDownLatch granted = new CountDownLatch(1);
                    Candidacy leader = election.join(role, LeaseInDoubtAcrossWallClockStepsTest.grantsTo(granted));
                    assertThat(granted.await(5, TimeUnit.SECONDS)).as("granted").isTrue();
                    RedisLock other = locker.getReadWriteLock("other-" + id).readLock();
                    other.lock();
                    List<String> roleKeys = new ArrayList<>(List.of("ACL", "SETUSER", "locker", "resetkeys"));
                    Internals.plainLockKeys(LockerFixture.PREFIX, role).forEach(key -> roleKeys.add("~" + key));
                    redis.command(roleKeys.toArray(String[]::new));
                    try {
                        await().atMost(LEASE).until(() -> locker.watchdogState().consecutiveFailures() >= 1);

                        long until = System.nanoTime() + LEASE.multipliedBy(2).toNanos(); // six ticks, each partly failed
                        int notLeaderReads = 0;
                        while (System.nanoTime() < until) {
                            if (!leader.isLeader()) {
                                notLeaderReads++;
                            }
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                        }
                        int failedTicks = locker.watchdogState().consecutiveFailures();

                        assertThat(failedTicks).as("partly failed ticks in a row").isGreaterThanOrEqualTo(4);
                        assertThat(notLeaderReads).as("reads of isLeader() false while every tick renewed the leader's lock").isZero();
                    } finally {
                        redis.command("ACL", "SETUSER", "locker", "resetkeys", "~*");
                    }
                    assertThatThrownBy(other::unlock).as("the other lock, unrenewed past its lease").isInstanceOf(LockLostException.class);
                } finally {
                    election.close();
                }
            } finally {
                factory.destroy();
            }
        }
    }
}
