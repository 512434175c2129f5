package io.github.redislock.core;

import io.github.redislock.AsyncLocker;
import io.github.redislock.ReactiveLocker;
import io.github.redislock.LockHandle;

import java.time.Duration;
import java.util.Objects;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@link ReactiveLocker} over an {@link AsyncLocker}: a thin adapter, so an application without
 * Reactor never loads it. A Mono's cancellation cancels the acquisition's future, which the async
 * locker turns into a withdrawal of the queue place or the release of a late grant.
 */
public final class RedisReactiveLocker implements ReactiveLocker {

    private final AsyncLocker async;

    public RedisReactiveLocker(AsyncLocker async) {
        this.async = Objects.requireNonNull(async, "async");
    }

    @Override
    public Mono<LockHandle> acquire(String key, Duration wait, Duration lease) {
        return Mono.fromFuture(() -> async.acquire(key, wait, lease).toCompletableFuture(), false);
    }

    @Override
    public Mono<LockHandle> acquire(LockHandle handle, Duration wait, Duration lease) {
        return Mono.fromFuture(() -> async.acquire(handle, wait, lease).toCompletableFuture(), false);
    }

    @Override
    public Mono<Void> release(LockHandle handle) {
        // A release is never cancelled half-way: Redis would still run it, and the caller not know it.
        return Mono.fromFuture(() -> async.release(handle).toCompletableFuture(), true);
    }

    @Override
    public Mono<Void> release(LockHandle handle, Duration holdAtLeast) {
        return Mono.fromFuture(() -> async.release(handle, holdAtLeast).toCompletableFuture(), true);
    }

    @Override
    public <T> Mono<T> withLock(String key, Duration wait, Mono<T> work) {
        Objects.requireNonNull(work, () -> "Work for lock '" + key + "' must not be null");
        return Mono.usingWhen(acquire(key, wait, null), handle -> work, this::release, (handle, error) -> release(handle), this::release);
    }

    @Override
    public <T> Flux<T> withLock(String key, Duration wait, Flux<T> work) {
        Objects.requireNonNull(work, () -> "Work for lock '" + key + "' must not be null");
        return Flux.usingWhen(acquire(key, wait, null), handle -> work, this::release, (handle, error) -> release(handle), this::release);
    }
}
