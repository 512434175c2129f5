package io.github.redislock;

import java.time.Duration;
import java.util.Objects;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Distributed locks for Reactor code: the {@link AsyncLocker} as {@link Mono}s and {@link Flux}es.
 * Nothing happens until subscription; every subscription is one acquisition. A waiting subscriber
 * holds no thread. Plain reentrant locks only (no fair, read-write or multi-locks, no Redlock).
 *
 * <p><b>Cancellation.</b> Cancelling a subscription that waits for the lock withdraws its place in
 * the lock's queue; a grant that arrives after the cancellation is released at once. Cancelling a
 * {@code withLock} stream while its work runs cancels the work and releases the lock.
 *
 * <p>Signals arrive on the locker's {@code redis-lock-async} threads: use {@code publishOn} for
 * blocking work. A null wait waits as long as it takes, {@link Duration#ZERO} tries once; a null lease
 * lets the watchdog keep the lock until it is released.
 */
public interface ReactiveLocker {

    /**
     * Takes the lock of {@code key} for a new handle; errors with {@link LockAcquisitionException} when
     * the wait runs out, {@link IllegalArgumentException} for a bad key, wait or lease.
     */
    Mono<LockHandle> acquire(String key, Duration wait, Duration lease);

    /** Takes the lock of the handle's key once more for the same handle (a re-entry when it holds it); each needs a release. */
    Mono<LockHandle> acquire(LockHandle handle, Duration wait, Duration lease);

    /** Releases one hold of the handle; see {@link AsyncLocker#release(LockHandle)}. */
    default Mono<Void> release(LockHandle handle) {
        return release(handle, Duration.ZERO);
    }

    /** Releases one hold of the handle, keeping the lock; see {@link AsyncLocker#release(LockHandle, Duration)}. */
    Mono<Void> release(LockHandle handle, Duration holdAtLeast);

    /**
     * Subscribes to {@code work} once the lock of {@code key} is held (kept by the watchdog) and releases
     * it when the work completes, errors or is cancelled.
     */
    default <T> Mono<T> withLock(String key, Duration wait, Mono<T> work) {
        Objects.requireNonNull(work, () -> "Work for lock '" + key + "' must not be null");
        return Mono.usingWhen(acquire(key, wait, null), handle -> work, this::release, (handle, error) -> release(handle), this::release);
    }

    /** Like {@link #withLock(String, Duration, Mono)}, holding the lock for the whole life of a {@link Flux}. */
    default <T> Flux<T> withLock(String key, Duration wait, Flux<T> work) {
        Objects.requireNonNull(work, () -> "Work for lock '" + key + "' must not be null");
        return Flux.usingWhen(acquire(key, wait, null), handle -> work, this::release, (handle, error) -> release(handle), this::release);
    }
}
