package io.github.redislock.autoconfigure;

import org.springframework.context.Phased;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A lifecycle bean that acts a given number of phases before the lock Redis's connection factory
 * stops, while Redis can still be reached. Spring Data Redis stops its factory in the lifecycle phase
 * of the context's shutdown, before any bean is destroyed: what needs Redis to shut down (withdrawing
 * waits, handing on a leader's roles, closing pub/sub connections) must happen here, not when its bean is
 * destroyed. Web servers stop in higher phases, so requests still running finish first.
 */
abstract class BeforeRedisStops implements SmartLifecycle {

    private final int phase;
    private volatile boolean running;

    /** @param steps how many phases before the connection factory's it stops */
    BeforeRedisStops(RedisConnectionFactory connectionFactory, int steps) {
        // A factory without a lifecycle is only destroyed, after every phase: any phase below the web server's will do.
        int factoryPhase = connectionFactory instanceof Phased factory ? factory.getPhase() : -1;
        this.phase = factoryPhase > Integer.MAX_VALUE - steps ? Integer.MAX_VALUE : factoryPhase + steps;
    }

    /** What must happen while the connection factory still works. */
    abstract void beforeRedisStops();

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        beforeRedisStops();
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
