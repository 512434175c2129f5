package io.github.redislock.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockObserver;
import io.github.redislock.RedisLock;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A watchdog tick whose renewal calls partly failed (one hash slot's or one script's call refused, a hung
 * Cluster master) counts what happened to each lock: the locks whose call succeeded as renewed, only the
 * others as failed ({@link LockObserver#renewalFailed}: "{@code locks} went without renewal"). The
 * failure is made with an ACL that, once both locks are held, refuses the read lock's keys only: the tick
 * then renews the plain lock in one script call and fails the read-write lock's.
 */
class PartlyFailedRenewalCountsTest {

    private final String id = UUID.randomUUID().toString();

    @Test
    void aTickThatRenewedOneLockAndFailedAnotherCountsOneRenewedAndOneFailed() {
        AtomicInteger renewed = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger failedTicks = new AtomicInteger();
        LockObserver counting = new LockObserver() {
            @Override
            public void renewed(int renewedLocks, int lost) {
                renewed.addAndGet(renewedLocks);
            }

            @Override
            public void renewalFailed(int locks, Throwable cause) {
                failed.addAndGet(locks);
                failedTicks.incrementAndGet();
            }
        };
        try (RedisServerProcess redis = TestRedis.startNew()) {
            LettuceConnectionFactory factory = LockerFixture.startedLettuceAsAclUser(redis);
            try (RedisLocker locker = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(Duration.ofSeconds(3))
                    .observer(counting).build()) {
                locker.lock("plain-" + id);
                RedisLock read = locker.getReadWriteLock("read-" + id).readLock();
                read.lock();

                redis.command("ACL", "SETUSER", "locker", "resetkeys", "~" + LockerFixture.PREFIX + "plain-*");
                renewed.set(0);
                failed.set(0);
                failedTicks.set(0);
                await().atMost(Duration.ofSeconds(5)).until(() -> failedTicks.get() >= 2); // 1 s apart: the read lock outlives them
                int ticks = failedTicks.get();
                int renewedSoFar = renewed.get();
                int failedSoFar = failed.get();
                redis.command("ACL", "SETUSER", "locker", "resetkeys", "~*");

                assertThat(failedSoFar).as("failed over " + ticks + " partly failed ticks: the read lock's, once each").isEqualTo(ticks);
                assertThat(renewedSoFar).as("renewed over those ticks: the plain lock, once each").isGreaterThanOrEqualTo(ticks);
                read.unlock();
                locker.unlock("plain-" + id);
            } finally {
                factory.destroy();
            }
        }
    }
}
