package io.github.redislock.core.script;

import io.github.redislock.Locker;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The Redis names of one lock, and the checks every Locker applies to a key, wait and lease. The lock
 * hash lives at {@code <prefix><key>}; its helper keys and channels share its cluster slot (see
 * {@link #helperName}). The names every plain lock and unlock sends are built once and kept with the hold.
 *
 * @param waitQueue     the plain lock's wait queue: a list of waiting owners (with their leases) a release hands the
 *                      lock to, oldest first
 * @param waitDeadlines the plain lock's sorted set of queued waiters by the deadline (ms) after which a silent waiter is skipped
 */
public record LockKeys(String prefix, String key, String name, String channel, String waitQueue, String waitDeadlines) {

    /** Longest key accepted; longer keys are almost always a mistake (an argument's toString() used as key). */
    public static final int MAX_KEY_LENGTH = 1024;
    /** Longest lease accepted; longer ones are almost always a unit mistake. */
    private static final long MAX_LEASE_MILLIS = TimeUnit.DAYS.toMillis(365);

    /** Per slot, the tag that stands in for a name holding a '}' (see {@link #helperName}). */
    private static final Map<Integer, String> SLOT_TAGS = new ConcurrentHashMap<>();

    public static LockKeys of(String prefix, String key) {
        validate(key);
        String name = prefix + key; // RedisLocker.redisName builds it alike
        return new LockKeys(prefix, key, name, helperName(prefix, name, "released"), helperName(prefix, name, "wait-queue"),
                helperName(prefix, name, "wait-deadlines"));
    }

    /**
     * The fencing-token counter of a fair or read-write lock; it expires with the lease it was drawn for and goes with
     * the lock, and a missing one restarts from the Redis clock in microseconds, so tokens keep rising per key even
     * after Redis lost its data. A plain lock needs none: its tokens are the Redis clock itself (see {@code acquire.lua}).
     */
    public String fence() {
        return helperName(prefix, name, "fence");
    }

    /** The read-write lock's sorted set of owners by lease deadline (ms), so each reader's lease ends alone. */
    public String leases() {
        return helperName(prefix, name, "leases");
    }

    /** The fair lock's queue: a list of waiting owners, first come first served. */
    public String queue() {
        return helperName(prefix, name, "queue");
    }

    /** The fair lock's sorted set of waiting owners by the deadline (ms) after which a silent waiter is dropped. */
    String waiters() {
        return helperName(prefix, name, "waiters");
    }

    /** Prefix of the fair lock's per-waiter wake-up channels; the owner field follows it. */
    public String turnChannelPrefix() {
        return helperName(prefix, name, "turn:");
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

    /**
     * A name under the prefix that hashes to the same cluster slot as {@code name}. A name with a hash tag
     * of its own (Redis Cluster's rule: the text between the first '{' and the next '}', when not empty,
     * decides the slot) is kept as it is; otherwise the whole name decides its slot, and becomes the tag
     * when it holds no '}'. A name with a '}' cannot be a tag (Redis would end the tag at it), so the
     * first of the base-36 numbers 0, 1, 2, ... of the same slot stands in for it: the same on every
     * instance and version, found in a few thousand tries on average and kept.
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
