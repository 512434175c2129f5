package io.github.redislock.autoconfigure;

import io.github.redislock.waiting.ReleaseSubscriptions;

import org.springframework.context.Phased;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Closes the release subscriptions' pub/sub connection when the context stops, one phase before the
 * connection factory stops.
 *
 * <p>Why: Spring Data Redis stops its connection factory (shutting down its pool and client) in the
 * lifecycle phase of the context's shutdown, before any bean is destroyed. Closed later, when
 * {@link ReleaseSubscriptions#close()} runs as the bean is destroyed, the connection is already gone,
 * and Lettuce ("Connection is already closed") or the pool ("contains unreleased connections") logs a
 * WARN at every shutdown. Web servers stop in higher phases, so requests still running can release
 * their locks first.
 */
final class ReleaseSubscriptionsLifecycle implements SmartLifecycle {

    private final ReleaseSubscriptions subscriptions;
    private final int phase;
    private volatile boolean running;

    ReleaseSubscriptionsLifecycle(ReleaseSubscriptions subscriptions, RedisConnectionFactory connectionFactory) {
        this.subscriptions = subscriptions;
        // A factory without a lifecycle is only destroyed, after every phase: any phase below the web server's will do.
        int factoryPhase = connectionFactory instanceof Phased factory ? factory.getPhase() : -1;
        this.phase = factoryPhase == Integer.MAX_VALUE ? factoryPhase : factoryPhase + 1;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        subscriptions.disconnect();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return phase;
    }
}
