package io.github.redislock.core.script;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The Redis names of one lock. The lock hash lives at {@code <prefix><key>}; its helper keys and its
 * release channel carry a hash tag that puts them in the lock hash's cluster slot, so a script never
 * touches two slots.
 *
 * <p>The names every plain lock and unlock sends are built once, when the lock is taken, and kept with
 * its hold; the others are built when asked for.
 *
 * @param waitQueue     the plain lock's wait queue: a list of waiting owners (with their leases) a release hands the
 *                      lock to, oldest first
 * @param waitDeadlines the plain lock's sorted set of queued waiters by the deadline (ms) after which a silent waiter is skipped
 */
public record LockKeys(String prefix, String key, String name, String channel, String waitQueue, String waitDeadlines) {

    /** Longest key accepted; longer keys are almost always a mistake (an argument's toString() used as key). */
    public static final int MAX_KEY_LENGTH = 1024;

    /** The {@link #slotTag} of each slot, once found. */
    private static final Map<Integer, String> SLOT_TAGS = new ConcurrentHashMap<>();

    public static LockKeys of(String prefix, String key) {
        validate(key);
        String name = prefix + key; // AbstractLocker.redisName builds it alike
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

    /**
     * A name under the prefix that hashes to the same cluster slot as {@code name}: when the name has a
     * hash tag of its own it is kept as it is; otherwise the whole name decides its slot, and becomes
     * the tag when it holds no '}'. A name with a '}' cannot be a tag (Redis would end the tag at it), so
     * a stand-in that hashes to the same slot is the tag instead, followed by the name ({@link #slotTag}).
     */
    static String helperName(String prefix, String name, String suffix) {
        if (hasHashTag(name)) {
            return prefix + name + ":" + suffix;
        }
        if (name.indexOf('}') < 0) {
            return prefix + "{" + name + "}:" + suffix;
        }
        return prefix + "{" + slotTag(ClusterSlotHashUtil.calculateSlot(name)) + "}" + name + ":" + suffix;
    }

    /** Redis Cluster's rule: the text between the first '{' and the next '}', when not empty, decides the slot. */
    static boolean hasHashTag(String name) {
        int open = name.indexOf('{');
        if (open < 0) {
            return false;
        }
        int close = name.indexOf('}', open + 1);
        return close > open + 1;
    }

    /**
     * The first of the base-36 numbers 0, 1, 2, ... whose hash slot is {@code slot}: the same on every
     * instance and version, so all of them name a lock's helper keys alike. Found in a few thousand
     * tries on average and kept.
     */
    static String slotTag(int slot) {
        return SLOT_TAGS.computeIfAbsent(slot, wanted -> {
            for (long candidate = 0; ; candidate++) {
                String tag = Long.toString(candidate, 36);
                if (ClusterSlotHashUtil.calculateSlot(tag) == wanted) {
                    return tag;
                }
            }
        });
    }
}
