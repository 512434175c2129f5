package io.github.redislock.core.script;

import io.github.redislock.Locker;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/** The checks every Locker applies to the waits and leases it is given. */
public final class LockTimes {

    /** Longest lease accepted; longer ones are almost always a unit mistake. */
    static final long MAX_LEASE_MILLIS = TimeUnit.DAYS.toMillis(365);

    private LockTimes() {
    }

    public static long leaseMillis(String key, long leaseTime, TimeUnit unit) {
        Objects.requireNonNull(unit, () -> "TimeUnit for lock '" + key + "' must not be null");
        if (leaseTime == Locker.WATCHDOG_LEASE) {
            return Locker.WATCHDOG_LEASE;
        }
        if (leaseTime <= 0) {
            throw new IllegalArgumentException("Lease time for lock '" + key + "' must be positive, or -1 for the watchdog, but was " + leaseTime + " " + unit);
        }
        long millis = unit.toMillis(leaseTime);
        if (millis == 0 || millis > MAX_LEASE_MILLIS) {
            throw new IllegalArgumentException("Lease time for lock '" + key + "' must be between 1 ms and 365 days, but was " + leaseTime + " " + unit);
        }
        return millis;
    }

    public static long waitNanos(String key, long waitTime, TimeUnit unit) {
        Objects.requireNonNull(unit, () -> "TimeUnit for lock '" + key + "' must not be null");
        if (waitTime == Locker.WAIT_FOREVER) {
            return Locker.WAIT_FOREVER;
        }
        if (waitTime < 0) {
            throw new IllegalArgumentException("Wait time for lock '" + key + "' must be 0 or more, or -1 to wait as long as it takes, but was " + waitTime + " " + unit);
        }
        return unit.toNanos(waitTime); // saturates at Long.MAX_VALUE, which waits as good as forever
    }
}
