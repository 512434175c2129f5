package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A watched hold's final unlock on Jedis whose command never reaches Redis (every connection cut, new ones refused, before
 * the write): the unlock throws {@link LockRedisException} naming the key, the instance forgets the hold (a second unlock is
 * refused as for a lock not held) and its watchdog stops renewing it, so the lock stays in Redis, held by nobody, until the
 * lease the last renewal gave it ends: at most the watchdog timeout after the failed unlock, never longer.
 */
class UnsentFinalUnlockTest {

    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(2);

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "unsent-final-unlock-" + UUID.randomUUID();
    private final FaultProxy proxy = new FaultProxy(redis.port());
    private final LockerFixture holder = LockerFixture.connectJedis("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
    private final LockerFixture other = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);

    @AfterEach
    void close() {
        proxy.heal();
        try {
            holder.close();
            other.close();
        } finally {
            proxy.close();
        }
    }

    @Test
    void aFinalUnlockThatNeverReachesRedisLeavesTheLockForAtMostTheWatchdogTimeoutRenewedByNobody() throws Exception {
        holder.locker.lock(key);
        proxy.dropAllAndRefuse();
        long failedAt = System.nanoTime();
        Throwable unlocked = catchThrowable(() -> holder.locker.unlock(key));
        long unlockReturned = System.nanoTime();
        proxy.heal(); // the watchdog could renew again now: it must not, the hold is forgotten

        assertThat(unlocked).isInstanceOf(LockRedisException.class).hasMessageContaining(holder.redisKey(key));
        assertThat(holder.locker.heldLockCount()).as("holds the instance keeps").isZero();
        assertThat(holder.locker.watchdogState().watchedCount()).as("locks its watchdog renews").isZero();
        assertThat(catchThrowable(() -> holder.locker.unlock(key))).as("a second unlock").isInstanceOf(IllegalMonitorStateException.class);
        assertThat(redis.command("EXISTS", holder.redisKey(key))).as("the lock right after the failed unlock").isEqualTo(1L);

        await().atMost(WATCHDOG_TIMEOUT.plusSeconds(5)).pollInterval(Duration.ofMillis(10))
                .until(() -> Long.valueOf(0).equals(redis.command("EXISTS", holder.redisKey(key))));
        long freeAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - failedAt);
        assertThat(freeAfterMillis).as("from the failed unlock until the lock's lease ended")
                .isLessThanOrEqualTo(WATCHDOG_TIMEOUT.toMillis() + TimeUnit.NANOSECONDS.toMillis(unlockReturned - failedAt) + 500);
        assertThat(other.locker.tryLock(key)).as("taken by another instance once the lease ended").isTrue();
        other.locker.unlock(key);
        assertThat(holder.lostEvents).isEmpty();
        System.out.println("unsent final unlock: unlock failed after " + TimeUnit.NANOSECONDS.toMillis(unlockReturned - failedAt)
                + " ms; lock gone from Redis after " + freeAfterMillis + " ms (watchdog timeout " + WATCHDOG_TIMEOUT.toMillis() + " ms)");
        await().atMost(Duration.ofSeconds(5)).until(() -> ((java.util.List<?>) redis.command("KEYS", "*" + key + "*")).isEmpty());
    }
}
