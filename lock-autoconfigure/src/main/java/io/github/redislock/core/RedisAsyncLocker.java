package io.github.redislock.core;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockAcquisitionException;
import io.github.redislock.LockHandle;
import io.github.redislock.Locker;
import io.github.redislock.core.hold.Hold;
import io.github.redislock.core.hold.HeldLocks;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.core.script.ScriptTransport;
import io.github.redislock.core.wait.ExecutorWait;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The {@link AsyncLocker} over a {@link RedisLocker}, sharing its holds, watchdog, subscriptions and close.
 * Its thread cost is fixed: a few {@code redis-lock-async} threads do the bookkeeping and timers of
 * every wait, and none waits for a script's reply (see {@link ExecutorWait}).
 */
public class RedisAsyncLocker implements AsyncLocker, AutoCloseable {

    public static final int DEFAULT_THREADS = 2;
    private static final long CLOSE_GRACE_SECONDS = 10;

    private final RedisLocker locker;
    private final ScheduledThreadPoolExecutor executor;
    private final AtomicInteger releasing = new AtomicInteger();

    public RedisAsyncLocker(RedisLocker locker) {
        this(locker, DEFAULT_THREADS);
    }

    public RedisAsyncLocker(RedisLocker locker, int threads) {
        this.locker = Objects.requireNonNull(locker, "locker");
        if (locker instanceof RedlockLocker) { // refused when built, as the registry and the leader election refuse it
            throw new IllegalArgumentException("An AsyncLocker (and a ReactiveLocker over it) cannot run on the Redlock Locker (redis-lock.redlock.nodes): "
                    + "its waits queue for a hand-off, which no majority of independent masters makes. Use the blocking Locker there.");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("An AsyncLocker needs at least 1 thread, but was given " + threads);
        }
        CustomizableThreadFactory threadFactory = new CustomizableThreadFactory("redis-lock-async-");
        threadFactory.setDaemon(true);
        this.executor = new ScheduledThreadPoolExecutor(threads, threadFactory);
        executor.setRemoveOnCancelPolicy(true); // every step replaces its wait's timer: cancelled ones must not pile up
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public CompletableFuture<LockHandle> acquire(String key, Duration wait, Duration lease) {
        LockKeys.validate(key);
        return acquire(new Handle(key, locker), wait, lease);
    }

    @Override
    public CompletableFuture<LockHandle> acquire(LockHandle issued, Duration wait, Duration lease) {
        Handle handle = Handle.of(issued, locker);
        String key = handle.key();
        long waitNanos = waitNanos(key, wait);
        long leaseMillis = leaseMillis(key, lease);
        LockKeys keys = locker.keys(key);
        String owner = locker.tokenOwner(handle.id());
        String what = "'" + key + "' for lock handle " + handle.id();
        List<LockKeys> observed = List.of(keys);
        RedisLocker.Observation observation = locker.observe(LockKind.PLAIN, observed, false);
        Supplier<CompletableFuture<Void>> giveBack = () -> locker.giveBack(LockKind.PLAIN, observed, owner, executor);
        ExecutorWait acquisition = new ExecutorWait(locker.lifecycle, executor, locker.queuedPlainAttempt(keys, owner, leaseMillis), () -> what, waitNanos,
                giveBack);
        CompletableFuture<LockHandle> result = new CompletableFuture<>();
        result.whenComplete((held, failure) -> {
            if (result.isCancelled()) {
                acquisition.stop(new CancellationException("Cancelled while waiting for " + what)); // withdraws, or gives back a grant in flight
            }
        });
        acquisition.outcome.whenComplete((held, failure) -> {
            Throwable cause = failure == null ? null : ScriptTransport.unwrap(failure);
            boolean acquired = cause == null && held;
            try {
                if (acquired) {
                    Hold hold = locker.holds.get(keys.name(), owner, LockKind.PLAIN);
                    handle.token().set(hold == null ? 0 : hold.token);
                }
                observation.ended(acquired, cause);
            } finally {
                // Ended before the caller's code runs on the result, which may close the locker (it still waits for a give-back below).
                locker.lifecycle.ended(acquisition);
            }
            if (!acquired) {
                result.completeExceptionally(cause != null ? cause : new LockAcquisitionException(key, Duration.ofNanos(waitNanos)));
            } else if (!result.complete(handle)) { // cancelled as it was granted: nobody gets the handle, so the grant goes back
                giveBack.get();
            }
        });
        acquisition.begin(); // a close that came first ends it (see WaitHost#started)
        return result;
    }

    @Override
    public CompletableFuture<Void> release(LockHandle handle) {
        return release(handle, Duration.ZERO);
    }

    @Override
    public <T> CompletableFuture<T> withLock(String key, Duration wait, Function<LockHandle, ? extends CompletionStage<T>> work) {
        return AsyncLocker.super.withLock(key, wait, work).toCompletableFuture();
    }

    /**
     * Starts on one of the locker's threads: unwatching may wait for a renewal in flight, and the caller's
     * thread may be an event loop. It waits for the handle's acquisition in flight, in the owner's turn.
     */
    @Override
    public CompletableFuture<Void> release(LockHandle issued, Duration holdAtLeast) {
        Handle handle = Handle.of(issued, locker);
        HeldLocks.checkedHoldAtLeast(handle.key(), holdAtLeast);
        String owner = locker.tokenOwner(handle.id());
        CompletableFuture<Void> released;
        releasing.incrementAndGet();
        try {
            released = CompletableFuture.supplyAsync(() -> locker.unlock(handle.key(), owner, holdAtLeast, executor), executor)
                    .thenCompose(settled -> settled);
        } catch (RejectedExecutionException e) {
            released = CompletableFuture.failedFuture(new IllegalStateException(closedException().getMessage() + "; cannot release " + handle));
        }
        released.whenComplete((done, failure) -> releasing.decrementAndGet());
        return released;
    }

    /** Acquisitions waiting now, for tests and diagnostics. */
    public int waitingCount() {
        return (int) locker.lifecycle.waits.stream().filter(ExecutorWait.class::isInstance).count();
    }

    /**
     * Closes the {@link RedisLocker} it is over, its waits told first to fail naming this AsyncLocker and their lock (not the
     * Locker, as a try the closing locker refused would); then lets the releases in flight settle (no thread would be left for a later reply), and stops.
     */
    @Override
    public void close() {
        locker.lifecycle.waits.forEach(wait -> {
            if (wait instanceof ExecutorWait) {
                wait.stop(wait.closedWhileWaiting());
            }
        });
        locker.close();
        LockerClose.awaitUntil(() -> releasing.get() == 0, System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_GRACE_SECONDS));
        executor.shutdown();
        LockerClose.awaitUntil(executor::isTerminated, System.nanoTime() + TimeUnit.SECONDS.toNanos(CLOSE_GRACE_SECONDS));
        executor.shutdownNow();
    }

    private static IllegalStateException closedException() {
        return new IllegalStateException("AsyncLocker is closed (its application context has shut down)");
    }

    private static long waitNanos(String key, Duration wait) {
        if (wait != null && wait.isNegative()) {
            throw new IllegalArgumentException("Wait time for lock '" + key + "' must be 0 or more, or null to wait as long as it takes, but was " + wait);
        }
        return wait == null ? Locker.WAIT_FOREVER : TimeUnit.NANOSECONDS.convert(wait); // saturates
    }

    private static long leaseMillis(String key, Duration lease) {
        if (lease != null && (lease.isNegative() || lease.isZero())) {
            throw new IllegalArgumentException("Lease time for lock '" + key + "' must be positive, or null for the watchdog, but was " + lease);
        }
        return lease == null ? Locker.WATCHDOG_LEASE : LockKeys.leaseMillis(key, TimeUnit.NANOSECONDS.convert(lease), TimeUnit.NANOSECONDS);
    }
}
