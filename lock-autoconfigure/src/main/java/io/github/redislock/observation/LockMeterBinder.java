package io.github.redislock.observation;

import io.github.redislock.RedisLocker;
import io.github.redislock.waiting.ReleaseSubscriptions;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/** The gauges: what this instance holds and how many of its threads wait, read when scraped. */
final class LockMeterBinder implements MeterBinder {

    static final String HELD_GAUGE = "redis.lock.held";
    static final String WAITERS_GAUGE = "redis.lock.waiters";

    private final RedisLocker locker;
    private final ReleaseSubscriptions subscriptions;

    LockMeterBinder(RedisLocker locker, ReleaseSubscriptions subscriptions) {
        this.locker = locker;
        this.subscriptions = subscriptions;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(HELD_GAUGE, locker, RedisLocker::heldLockCount)
                .description("Locks this instance holds now").register(registry);
        Gauge.builder(WAITERS_GAUGE, subscriptions, ReleaseSubscriptions::waiterCount)
                .description("Threads of this instance waiting for a lock now").register(registry);
    }
}
