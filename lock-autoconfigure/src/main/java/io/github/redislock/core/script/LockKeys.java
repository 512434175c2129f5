package io.github.redislock.core.script;

import io.github.redislock.Locker;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The Redis names of one lock (what each holds: see the {@code .lua} headers), and the checks every Locker applies to a key,
 * wait and lease. The names a plain lock sends are built once and kept with the hold; the fair and read-write ones on each call.
 */
public record LockKeys(String prefix, String key, String name, String channel, String waitQueue, String waitDeadlines) {

    /** Longest key accepted; longer keys are almost always a mistake (an argument's toString() used as key). */
    public static final int MAX_KEY_LENGTH = 1024;

    /** Per slot, the tag that stands in for a name holding a '}' (see {@link #helperName}). */
    private static final Map<Integer, String> SLOT_TAGS = new ConcurrentHashMap<>();

    public static LockKeys of(String prefix, String key) {
        validate(key);
        String name = prefix + key; // RedisLocker.redisName builds it alike
        return new LockKeys(prefix, key, name, helperName(prefix, name, "released"), helperName(prefix, name, "wait-queue"),
                helperName(prefix, name, "wait-deadlines"));
    }

    /** The fencing-token counter of a fair or read-write lock (a plain lock's tokens are the Redis clock). */
    public String fence() {
        return helper("fence");
    }

    public String leases() {
        return helper("leases");
    }

    public String queue() {
        return helper("queue");
    }

    public String turnChannelPrefix() {
        return helper("turn:");
    }

    String helper(String suffix) {
        return helperName(prefix, name, suffix);
    }

    public static void validate(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("Lock key must not be null or blank, but was " + (key == null ? "null" : "'" + key + "'"));
        }
        if (key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("Lock key is " + key.length() + " characters long, more than the limit of "
                    + MAX_KEY_LENGTH + ": '" + key.substring(0, 40) + "...'");
        }
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
        if (millis == 0 || millis > TimeUnit.DAYS.toMillis(365)) { // longer is almost always a unit mistake
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

    /**
     * A name under the prefix in the cluster slot of {@code name}, so one script can reach the lock and all its helpers.
     * A name with a hash tag of its own keeps it; another becomes the tag, unless it holds a '}' (Redis would end the tag
     * there): then the first base-36 number of the same slot stands in, the same on every instance, found once and kept.
     */
    static String helperName(String prefix, String name, String suffix) {
        int open = name.indexOf('{');
        if (open >= 0 && name.indexOf('}', open + 1) > open + 1) {
            return prefix + name + ":" + suffix;
        }
        if (name.indexOf('}') < 0) {
            return prefix + "{" + name + "}:" + suffix;
        }
        String tag = SLOT_TAGS.computeIfAbsent(ClusterSlotHashUtil.calculateSlot(name), slot -> {
            for (long candidate = 0; ; candidate++) {
                if (ClusterSlotHashUtil.calculateSlot(Long.toString(candidate, 36)) == slot) {
                    return Long.toString(candidate, 36);
                }
            }
        });
        return prefix + "{" + tag + "}" + name + ":" + suffix;
    }
}
