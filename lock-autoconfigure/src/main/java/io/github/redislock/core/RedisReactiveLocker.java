package io.github.redislock.core;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockNameScope;
import io.github.redislock.ReactiveLocker;
import io.github.redislock.LockHandle;
import io.github.redislock.core.script.ScriptTransport;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import reactor.core.publisher.Mono;

/**
 * The {@link ReactiveLocker} over an {@link AsyncLocker}, so an application without Reactor never loads
 * it. A Mono's cancellation cancels the acquisition's future. One that arrives as the acquisition
 * completes makes Reactor drop the handle, which the watchdog would renew for ever: a discard hook
 * releases it. An acquisition is named by the {@link LockNameScope} its Mono was built in.
 */
public final class RedisReactiveLocker implements ReactiveLocker {

    private static final Log log = LogFactory.getLog(RedisReactiveLocker.class);

    private final AsyncLocker async;

    public RedisReactiveLocker(AsyncLocker async) {
        this.async = Objects.requireNonNull(async, "async");
    }

    @Override
    public Mono<LockHandle> acquire(String key, Duration wait, Duration lease) {
        return acquisition(() -> async.acquire(key, wait, lease).toCompletableFuture());
    }

    @Override
    public Mono<LockHandle> acquire(LockHandle handle, Duration wait, Duration lease) {
        return acquisition(() -> async.acquire(handle, wait, lease).toCompletableFuture());
    }

    private Mono<LockHandle> acquisition(Supplier<CompletableFuture<LockHandle>> acquire) {
        String name = LockNameScope.current();
        return Mono.fromFuture(() -> {
            String previousName = LockNameScope.enter(name);
            try {
                return acquire.get();
            } finally {
                LockNameScope.exit(previousName);
            }
        }, false).doOnDiscard(LockHandle.class, handle -> async.release(handle).whenComplete((released, failure) -> {
            if (failure != null) {
                log.warn("Could not release " + handle + ", acquired as its subscriber cancelled; it frees when its lease ends",
                        ScriptTransport.unwrap(failure));
            }
        }));
    }

    /** A release is never cancelled half-way: Redis would still run it, and the caller not know it. */
    @Override
    public Mono<Void> release(LockHandle handle, Duration holdAtLeast) {
        return Mono.fromFuture(() -> async.release(handle, holdAtLeast).toCompletableFuture(), true);
    }
}
