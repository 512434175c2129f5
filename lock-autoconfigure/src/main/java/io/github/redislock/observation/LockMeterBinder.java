package io.github.redislock.observation;

import io.github.redislock.core.RedisLocker;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/** The gauges: what this instance holds and how many of its threads wait, read when scraped. */
public final class LockMeterBinder implements MeterBinder {

    static final String HELD_GAUGE = "redis.lock.held";
    static final String WAITERS_GAUGE = "redis.lock.waiters";

    private final RedisLocker locker;

    public LockMeterBinder(RedisLocker locker) {
        this.locker = locker;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(HELD_GAUGE, locker, RedisLocker::heldLockCount)
                .description("Locks this instance holds now").register(registry);
        Gauge.builder(WAITERS_GAUGE, locker, RedisLocker::waiterCount)
                .description("Threads of this instance waiting for a lock now").register(registry);
    }
}
