package io.github.redislock.autoconfigure;

import org.springframework.context.Phased;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Closes the release subscriptions' pub/sub connection when the context stops, one phase before the
 * connection factory stops; the leader election uses it too, one phase earlier still, to hand its roles on.
 *
 * <p>Why: Spring Data Redis stops its connection factory (shutting down its pool and client) in the
 * lifecycle phase of the context's shutdown, before any bean is destroyed. Closed later, when
 * the Locker bean is destroyed and closes its subscriptions, the connection is already gone,
 * and Lettuce ("Connection is already closed") or the pool ("contains unreleased connections") logs a
 * WARN at every shutdown. Web servers stop in higher phases, so requests still running can release
 * their locks first.
 */
final class ReleaseSubscriptionsLifecycle implements SmartLifecycle {

    private final Runnable onStop;
    private final int phase;
    private volatile boolean running;

    /**
     * @param onStop closes the subscriptions (of no Locker when the application has its own)
     * @param steps  how many phases before the connection factory's it stops
     */
    ReleaseSubscriptionsLifecycle(Runnable onStop, RedisConnectionFactory connectionFactory, int steps) {
        this.onStop = onStop;
        // A factory without a lifecycle is only destroyed, after every phase: any phase below the web server's will do.
        int factoryPhase = connectionFactory instanceof Phased factory ? factory.getPhase() : -1;
        this.phase = factoryPhase > Integer.MAX_VALUE - steps ? Integer.MAX_VALUE : factoryPhase + steps;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        onStop.run();
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
