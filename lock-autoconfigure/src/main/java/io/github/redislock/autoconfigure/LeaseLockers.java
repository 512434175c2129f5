package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;

import io.github.redislock.core.RedisLocker;

import org.springframework.beans.factory.DisposableBean;

/**
 * Lockers that differ from the Locker bean only by their watchdog timeout, one per lease: a role's lock
 * must free itself within its leadership lease when its leader dies, not within the Locker's 30 s default.
 * Each costs a watchdog thread and, once something waits, a pub/sub connection. Not beans: a second
 * Locker bean would make the application's Locker ambiguous.
 */
final class LeaseLockers implements DisposableBean {

    private final RedisLocker locker;
    private final Function<Duration, RedisLocker> build;
    private final Map<Duration, RedisLocker> byLease = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** @param build a Locker like {@code locker} with the given watchdog timeout */
    LeaseLockers(RedisLocker locker, Function<Duration, RedisLocker> build) {
        this.locker = locker;
        this.build = build;
    }

    /** The Locker whose watchdog keeps a lock alive for {@code lease} after its instance stopped renewing it. */
    RedisLocker forLease(Duration lease) {
        if (lease.equals(locker.watchdogState().timeout())) {
            return locker;
        }
        if (closed) {
            throw new IllegalStateException("The leadership Lockers are closed (the application context has shut down)");
        }
        return byLease.computeIfAbsent(lease, build);
    }

    /** Those built so far, for closing their subscriptions before the connection factory stops. */
    Stream<RedisLocker> built() {
        return byLease.values().stream();
    }

    @Override
    public void destroy() {
        closed = true;
        byLease.values().forEach(RedisLocker::close);
    }
}
