package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Locker;
import io.github.redislock.waiting.ReleaseSubscriptions;

import org.springframework.context.ApplicationContext;

/** A second thread that waits for a lock, takes it and releases it: proof that waiting and wake-ups work. */
final class Waiters {

    private Waiters() {
    }

    /** Completes with whether the lock was taken within 10 s; the lock is released again before. */
    static CompletableFuture<Boolean> waitTakeAndRelease(Locker locker, String key) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                boolean acquired = locker.tryLock(key, 10, -1, TimeUnit.SECONDS);
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

    /** Takes the lock, lets a second thread wait for it and releases it: the release message must wake the waiter, who gets the lock. */
    static void assertAReleaseWakesAWaiter(ApplicationContext context, String key) throws Exception {
        Locker locker = context.getBean(Locker.class);
        locker.lock(key);
        CompletableFuture<Boolean> waiter = waitTakeAndRelease(locker, key);
        await().atMost(Duration.ofSeconds(5)).until(() -> context.getBean(ReleaseSubscriptions.class).waiterCount() == 1);
        locker.unlock(key);
        assertThat(waiter.get(5, TimeUnit.SECONDS)).as("waiter woken by the release message got '%s'", key).isTrue();
    }
}
