package io.github.redislock.reliability;

import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.WatchdogState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Locker;
import io.github.redislock.core.LockerFixture;

import org.springframework.context.ApplicationContext;

/** A second thread that waits for a lock, takes it and releases it: proof that waiting and wake-ups work. */
final class Waiters {

    private Waiters() {
    }

    /** Completes with whether the lock was taken within 10 s; the lock is released again before. */
    static CompletableFuture<Boolean> waitTakeAndRelease(Locker locker, String key) {
        return waitTakeAndRelease(locker, key, -1);
    }

    /** As above, taken with a lease of {@code leaseSeconds} (-1: the watchdog's). */
    static CompletableFuture<Boolean> waitTakeAndRelease(Locker locker, String key, long leaseSeconds) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                boolean acquired = locker.tryLock(key, 10, leaseSeconds, TimeUnit.SECONDS);
                if (acquired) {
                    locker.unlock(key);
                }
                return acquired;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for lock '" + key + "'", e);
            }
        });
    }

    /**
     * Takes the lock, lets a second thread wait for it and releases it: the release must wake the waiter,
     * who holds the lock within {@link LockerFixture#WOKEN_WITHIN}. The context's watchdog timeout must make
     * the waiter's own retries (every ninth of it) slower than that, or a wake-up could not be told from a retry.
     */
    static void assertAReleaseWakesAWaiter(ApplicationContext context, String key) throws Exception {
        assertAReleaseWakesAWaiter(context, key, () -> { });
    }

    /** As above, with {@code justBeforeTheRelease} run once the waiter waits: a fault the release must get through. */
    static void assertAReleaseWakesAWaiter(ApplicationContext context, String key, Runnable justBeforeTheRelease) throws Exception {
        long retryMillis = context.getBean(WatchdogState.Source.class).watchdogState().timeout().toMillis() / 9;
        assertThat(retryMillis).as("ms between a waiter's own retries (set redis-lock.watchdog-timeout=30s for a wake-up test)")
                .isGreaterThan(2 * LockerFixture.WOKEN_WITHIN.toMillis());
        Locker locker = context.getBean(Locker.class);
        locker.lock(key);
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(locker.tryLock(key, 10, -1, TimeUnit.SECONDS)).as("waiter got '%s'", key).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for lock '" + key + "'", e);
            }
            long at = System.nanoTime();
            locker.unlock(key);
            return at;
        });
        // Released right after the waiter parks: its own next look at the lock is a whole retry period away.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> context.getBean(RedisLocker.class).waiterCount() == 1);
        justBeforeTheRelease.run();
        long releasedAt = System.nanoTime();
        locker.unlock(key);
        assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(15, TimeUnit.SECONDS) - releasedAt))
                .as("ms from the release of '%s' until the waiter held it", key).isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
    }
}
