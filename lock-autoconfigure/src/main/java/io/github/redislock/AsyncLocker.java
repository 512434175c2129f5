package io.github.redislock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Distributed locks for asynchronous code: the same locks as the {@link Locker} (same Redis keys,
 * scripts, hand-off queue, fencing tokens, watchdog), owned by a {@link LockHandle} instead of a
 * thread, and waited for without a thread: a queued acquisition is a callback on the lock's release
 * and hand-off messages plus a timer.
 *
 * <p>Plain reentrant locks only (no fair, read-write or multi-locks, no Redlock). Stages complete on
 * the locker's own {@code redis-lock-async} threads: move blocking work elsewhere.
 *
 * <p><b>Cancellation.</b> Cancelling the future of an acquisition
 * ({@code stage.toCompletableFuture().cancel(false)}) withdraws its place in the lock's queue; when
 * the lock was granted meanwhile, the grant is released again. Nothing stays held or renewed.
 *
 * <p><b>Arguments.</b> A wait of {@link Duration#ZERO} tries once; a null wait waits as long as it takes.
 * A null lease lets the watchdog keep the lock until it is released.
 */
public interface AsyncLocker {

    /**
     * Takes the lock of {@code key} for a new handle.
     *
     * @return completes with the handle holding the lock, or fails with {@link LockAcquisitionException}
     *         when the wait ran out, {@link LockRedisException} when Redis failed
     * @throws IllegalArgumentException for a bad key, wait or lease (naming the key)
     */
    CompletionStage<LockHandle> acquire(String key, Duration wait, Duration lease);

    /**
     * Takes the lock of the handle's key once more for the same handle: a re-entry when it holds the
     * lock (a lease never shortens its life, and a null lease keeps the lease the hold was taken with),
     * else a new acquisition. Each call needs a release.
     *
     * @return as {@link #acquire(String, Duration, Duration)}
     * @throws IllegalArgumentException when this locker did not issue the handle, or for a bad wait or lease (naming the key)
     * @throws NullPointerException     when {@code handle} is null
     */
    CompletionStage<LockHandle> acquire(LockHandle handle, Duration wait, Duration lease);

    /**
     * Releases one hold of the handle; the final one frees the lock or hands it to the first queued waiter.
     *
     * @return fails with {@link IllegalMonitorStateException} when the handle holds nothing,
     *         {@link LockLostException} when the lock expired or was deleted meanwhile
     */
    default CompletionStage<Void> release(LockHandle handle) {
        return release(handle, Duration.ZERO);
    }

    /**
     * Releases one hold of the handle like {@link #release(LockHandle)}, except that a final release
     * less than {@code holdAtLeast} after the lock was taken keeps it in Redis, owned by nobody (this
     * handle neither), until {@code holdAtLeast} after it was taken; see {@link Locker#unlock(String, Duration)}.
     *
     * @return fails as {@link #release(LockHandle)}'s does
     * @throws IllegalArgumentException when {@code holdAtLeast} is null or negative, or this locker did not issue the handle
     *                                  (nothing is released)
     * @throws NullPointerException     when {@code handle} is null
     */
    CompletionStage<Void> release(LockHandle handle, Duration holdAtLeast);

    /**
     * Runs {@code work} while holding the lock of {@code key} (kept by the watchdog), and releases it
     * when the work's stage completes, normally or not. A wait that runs out fails the result with
     * {@link LockAcquisitionException} and never starts the work.
     */
    default <T> CompletionStage<T> withLock(String key, Duration wait, Function<LockHandle, ? extends CompletionStage<T>> work) {
        Objects.requireNonNull(work, () -> "Work for lock '" + key + "' must not be null");
        CompletableFuture<LockHandle> acquiring = acquire(key, wait, null).toCompletableFuture();
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
                Throwable error = workFailure != null ? unwrap(workFailure) : releaseFailure != null ? unwrap(releaseFailure) : null;
                if (workFailure != null && releaseFailure != null) {
                    error.addSuppressed(unwrap(releaseFailure));
                }
                if (error == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(error);
                }
            }));
        });
        return result;
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
