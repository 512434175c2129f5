package io.github.redislock.annotation;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockAcquisitionException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNameScope;

/**
 * Locking for methods returning a {@link CompletionStage}, through the {@link AsyncLocker}: the call
 * returns at once, the lock is waited for without a thread, the method body runs once it is held (on
 * the thread that learnt it, a {@code redis-lock-async} one) and the lock is released when the stage
 * the body returned completes. The lock belongs to a {@link LockHandle}, never to a thread. A caller
 * that cancels its future before the body runs withdraws the wait, as a cancelled {@code Mono} does:
 * the body of a call given up on does not run later, and no queued place holds up the other waiters.
 */
final class StageLocking {

    private StageLocking() {
    }

    /** Whether this call can take this path: one key, and a return type a CompletableFuture fits. */
    static boolean applies(DistributedLockInterceptor.LockedCall call) {
        return call.keys.size() == 1 && call.definition.method.getReturnType().isAssignableFrom(CompletableFuture.class);
    }

    static CompletableFuture<Object> lock(DistributedLockInterceptor.LockedCall call, AsyncLocker locker) {
        CompletableFuture<Object> result = new CompletableFuture<>();
        CompletableFuture<LockHandle> acquiring = acquire(call, locker).toCompletableFuture();
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) { // the caller gave up: withdraw the wait (a grant on its way is given back)
                acquiring.cancel(false);
            }
        });
        acquiring.whenComplete((handle, failure) -> {
            if (failure == null && result.isCancelled()) { // cancelled as the lock came: the body is not run
                locker.release(handle);
            } else if (failure == null) {
                runHolding(call, locker, handle, result);
            } else if (unwrap(failure) instanceof LockAcquisitionException notAcquired) {
                onFailure(call, notAcquired, result);
            } else {
                result.completeExceptionally(unwrap(failure));
            }
        });
        return result;
    }

    /** The acquisition as the annotation defines it, named for metrics after the method. */
    static CompletionStage<LockHandle> acquire(DistributedLockInterceptor.LockedCall call, AsyncLocker locker) {
        return acquire(call, locker::acquire);
    }

    /** Starts the acquisition the annotation defines with {@code acquire}, in the method's metrics name scope. */
    static <T> T acquire(DistributedLockInterceptor.LockedCall call, Acquire<T> acquire) {
        String previousName = LockNameScope.enter(call.definition.name);
        try {
            Duration wait = call.wait.isNegative() ? null : call.wait;
            Duration lease = call.definition.leaseMillis < 0 ? null : Duration.ofMillis(call.definition.leaseMillis);
            return acquire.start(call.keys.get(0), wait, lease);
        } finally {
            LockNameScope.exit(previousName);
        }
    }

    /** An acquisition of an AsyncLocker or a ReactiveLocker: null wait waits as long as it takes, null lease is the watchdog's. */
    @FunctionalInterface
    interface Acquire<T> {
        T start(String key, Duration wait, Duration lease);
    }

    private static void runHolding(DistributedLockInterceptor.LockedCall call, AsyncLocker locker, LockHandle handle,
                                   CompletableFuture<Object> result) {
        Object stage;
        try {
            stage = call.proceed();
        } catch (Throwable methodFailure) {
            release(call, locker, handle).whenComplete((released, releaseFailure) -> settle(result, null, methodFailure, releaseFailure));
            return;
        }
        if (stage == null) {
            release(call, locker, handle).whenComplete((released, releaseFailure) -> settle(result, null, null, releaseFailure));
            return;
        }
        ((CompletionStage<?>) stage).whenComplete((value, error) -> release(call, locker, handle)
                .whenComplete((released, releaseFailure) -> settle(result, value, error, releaseFailure)));
    }

    /** The release as the annotation defines it: kept until its {@code holdAtLeast}, when it has one. */
    static CompletionStage<Void> release(DistributedLockInterceptor.LockedCall call, AsyncLocker locker, LockHandle handle) {
        return call.definition.holdAtLeast.isZero() ? locker.release(handle) : locker.release(handle, call.definition.holdAtLeast);
    }

    /**
     * The body's outcome; a failed release fails a body that succeeded and comes suppressed with the failure
     * of one that did not, as the blocking path's release does.
     */
    static void settle(CompletableFuture<Object> result, Object value, Throwable error, Throwable releaseFailure) {
        if (error != null) {
            Throwable failure = unwrap(error);
            if (releaseFailure != null && unwrap(releaseFailure) != failure) {
                failure.addSuppressed(unwrap(releaseFailure));
            }
            result.completeExceptionally(failure);
        } else if (releaseFailure != null) {
            result.completeExceptionally(unwrap(releaseFailure));
        } else {
            result.complete(value);
        }
    }

    private static void onFailure(DistributedLockInterceptor.LockedCall call, LockAcquisitionException failure, CompletableFuture<Object> result) {
        Object fallback;
        try {
            fallback = call.onFailure(failure);
        } catch (Throwable e) {
            result.completeExceptionally(e);
            return;
        }
        if (fallback instanceof CompletionStage<?> stage) {
            stage.whenComplete((value, error) -> settle(result, value, error, null));
        } else {
            result.complete(fallback);
        }
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
