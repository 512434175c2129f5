package io.github.redislock.autoconfigure;

import io.github.redislock.core.RedisLocker;

import org.springframework.beans.factory.ObjectProvider;

import org.springframework.context.Phased;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Closes the release subscriptions' pub/sub connection when the context stops, one phase before the
 * connection factory stops.
 *
 * <p>Why: Spring Data Redis stops its connection factory (shutting down its pool and client) in the
 * lifecycle phase of the context's shutdown, before any bean is destroyed. Closed later, when
 * the Locker bean is destroyed and closes its subscriptions, the connection is already gone,
 * and Lettuce ("Connection is already closed") or the pool ("contains unreleased connections") logs a
 * WARN at every shutdown. Web servers stop in higher phases, so requests still running can release
 * their locks first.
 */
final class ReleaseSubscriptionsLifecycle implements SmartLifecycle {

    private final ObjectProvider<RedisLocker> locker;
    private final int phase;
    private volatile boolean running;

    ReleaseSubscriptionsLifecycle(ObjectProvider<RedisLocker> locker, RedisConnectionFactory connectionFactory) {
        this.locker = locker;
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
        locker.ifAvailable(RedisLocker::disconnectSubscriptions); // none when the application has its own Locker
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
