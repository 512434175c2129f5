package io.github.redislock.core;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockHandle;
import io.github.redislock.Locker;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * The {@link AsyncLocker} of one application instance, over its {@link RedisLocker}: the same holds,
 * watchdog, release subscriptions and hand-off inbox.
 *
 * <p>Its thread cost is fixed, however many callers wait: a few {@code redis-lock-async} threads run
 * the Redis round trips of every acquisition and release (each a single script call that Redis answers
 * in well under a millisecond) and the timers of the waits. A waiting acquisition holds none of them.
 */
public class RedisAsyncLocker implements AsyncLocker, AutoCloseable {

    /** Threads running the Redis calls and timers of all waits; they wait for Redis, never for a lock. */
    public static final int DEFAULT_THREADS = 2;

    private final RedisLocker locker;
    private final ScheduledThreadPoolExecutor executor;
    private final Set<AsyncWait> waits = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public RedisAsyncLocker(RedisLocker locker) {
        this(locker, DEFAULT_THREADS);
    }

    /** @param threads how many threads run the Redis calls and timers of all waits */
    public RedisAsyncLocker(RedisLocker locker, int threads) {
        this.locker = Objects.requireNonNull(locker, "locker");
        if (threads < 1) {
            throw new IllegalArgumentException("An AsyncLocker needs at least 1 thread, but was given " + threads);
        }
        AtomicInteger count = new AtomicInteger();
        this.executor = new ScheduledThreadPoolExecutor(threads, task -> {
            Thread thread = new Thread(task, "redis-lock-async-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true); // every step replaces its wait's timer: cancelled ones must not pile up
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public CompletableFuture<LockHandle> acquire(String key, Duration wait, Duration lease) {
        LockKeys.validate(key);
        return acquire(new Handle(key), wait, lease);
    }

    @Override
    public CompletableFuture<LockHandle> acquire(LockHandle issued, Duration wait, Duration lease) {
        Handle handle = Handle.of(issued);
        String key = handle.key();
        long waitNanos = waitNanos(key, wait);
        long leaseMillis = leaseMillis(key, lease);
        LockKeys keys = keys(key);
        String owner = locker.tokenOwner(handle.id());
        AsyncWait[] self = new AsyncWait[1];
        self[0] = new AsyncWait(locker, executor, handle, keys, owner, waitNanos, leaseMillis, () -> waits.remove(self[0]));
        waits.add(self[0]);
        if (closed) { // closed between the check and the registration: close() may not have seen it
            self[0].stop(closedException(key));
        }
        return self[0].start();
    }

    @Override
    public CompletableFuture<Void> release(LockHandle issued) {
        Handle handle = Handle.of(issued);
        String owner = locker.tokenOwner(handle.id());
        try {
            return CompletableFuture.runAsync(() -> locker.unlock(LockKind.PLAIN, handle.key(), owner), executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(closedException(handle.key()));
        }
    }

    @Override
    public <T> CompletableFuture<T> withLock(String key, Duration wait, Function<LockHandle, ? extends CompletionStage<T>> work) {
        Objects.requireNonNull(work, () -> "Work for lock '" + key + "' must not be null");
        CompletableFuture<LockHandle> acquiring = acquire(key, wait, null);
        CompletableFuture<T> result = new CompletableFuture<>();
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                acquiring.cancel(false); // no effect once the work runs: the lock is released when its stage completes
            }
        });
        acquiring.whenComplete((handle, failure) -> {
            if (failure != null) {
                result.completeExceptionally(unwrap(failure));
                return;
            }
            CompletionStage<T> stage;
            try {
                stage = Objects.requireNonNull(work.apply(handle), () -> "Work for lock '" + key + "' returned null instead of a stage");
            } catch (RuntimeException | Error e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((value, workFailure) -> release(handle).whenComplete((released, releaseFailure) -> {
                Throwable error = workFailure != null ? unwrap(workFailure) : null;
                if (releaseFailure != null) {
                    if (error == null) {
                        error = unwrap(releaseFailure);
                    } else {
                        error.addSuppressed(unwrap(releaseFailure));
                    }
                }
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    result.complete(value);
                }
            }));
        });
        return result;
    }

    /** Acquisitions waiting now, for tests and diagnostics. */
    public int waitingCount() {
        return waits.size();
    }

    /**
     * Ends every wait (each withdraws its queue place; a lock granted meanwhile is given back) and stops
     * the threads. Waits still pending fail with {@link IllegalStateException}. Holds stay with the
     * {@link RedisLocker}, which stops renewing them when it closes.
     */
    @Override
    public void close() {
        closed = true;
        for (AsyncWait wait : waits) {
            wait.stop(new IllegalStateException("AsyncLocker is closed (its application context has shut down)"));
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private LockKeys keys(String key) {
        if (closed) {
            throw closedException(key);
        }
        return locker.keys(key);
    }

    private static IllegalStateException closedException(String key) {
        return new IllegalStateException("AsyncLocker is closed (its application context has shut down); cannot use lock '" + key + "'");
    }

    private static long waitNanos(String key, Duration wait) {
        if (wait == null) {
            return Locker.WAIT_FOREVER;
        }
        if (wait.isNegative()) {
            throw new IllegalArgumentException("Wait time for lock '" + key + "' must be 0 or more, or null to wait as long as it takes, but was " + wait);
        }
        return LockTimes.waitNanos(key, saturatedNanos(wait), TimeUnit.NANOSECONDS);
    }

    private static long leaseMillis(String key, Duration lease) {
        if (lease == null) {
            return Locker.WATCHDOG_LEASE;
        }
        if (lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("Lease time for lock '" + key + "' must be positive, or null for the watchdog, but was " + lease);
        }
        return LockTimes.leaseMillis(key, saturatedNanos(lease), TimeUnit.NANOSECONDS);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
