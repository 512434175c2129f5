package io.github.redislock.core.wait;

import io.github.redislock.LockRedisException;

/**
 * How a waiter rides out a short Redis outage: its place in the wait queue outlasts a few failed tries,
 * so it tries again soon instead of failing; an outage longer than the watchdog timeout ends the wait.
 * Part of every {@link LockWait}, so that blocking and thread-free waits judge outages alike.
 */
public final class OutageRideOut {

    /** How soon a waiter whose try failed on Redis tries again. */
    static final long RETRY_AFTER_MILLIS = 100;

    private final long limitNanos;
    private LockRedisException failing;
    private long failingSince;

    /** @param limitNanos the longest outage a wait rides out (the watchdog timeout) */
    OutageRideOut(long limitNanos) {
        this.limitNanos = limitNanos;
    }

    /** @return whether the wait may go on after this failed try */
    boolean rideOut(LockRedisException failure) {
        long now = System.nanoTime();
        failingSince = failing == null ? now : failingSince;
        failing = failure;
        return now - failingSince < limitNanos;
    }

    /** A try got an answer: the outage, if any, is over. */
    void answered() {
        failing = null;
    }

    /** The latest failure of an outage still going on, else null: what a wait that runs out meanwhile fails with. */
    LockRedisException failure() {
        return failing;
    }
}
