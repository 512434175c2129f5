package io.github.redislock.reliability;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Locker;

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
}
