package io.github.redislock;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The fencing tokens of the locks the calling thread holds, for code that cannot reach the lock
 * object: a method run under {@code @DistributedLock}, or a repository several calls below the one
 * that took the lock. Every acquisition on a thread records here how to get its token; the final release removes it.
 *
 * <p>A Locker records a {@link LongSupplier} per acquisition, not a {@code long}: a plain lock's everyday
 * acquisition draws no token, and {@link #current} draws it at the first ask.
 */
public final class FencingTokens {

    /**
     * key -> the thread's hold on it: a {@link Token}, or, while several Lockers hold the key on this thread, a map of
     * Redis key and owner to token supplier, latest acquisition last. One hold per key is the usual case, and it costs one object.
     */
    private static final ThreadLocal<Map<String, Object>> HELD = ThreadLocal.withInitial(HashMap::new);

    private record Token(String hold, LongSupplier token) {
    }

    private FencingTokens() {
    }

    /**
     * The token of the calling thread's hold on {@code key} (the key as given to the Locker, without the prefix);
     * see {@link RedisLock#fencingToken()} for how a resource uses it and the Redis clock it relies on. The first ask of a
     * plain lock's hold whose acquisition drew no token draws it, in one round trip to Redis (it blocks for that); later asks are local.
     *
     * @throws IllegalStateException when the calling thread holds no lock on {@code key}, or one without a token (Redlock), or
     *                               the Locker that took it is closed (it draws no token from Redis then)
     * @throws LockLostException     when the token had to be drawn and Redis no longer has the hold
     */
    public static long current(String key) {
        Object held = HELD.get().get(key);
        if (held == null) {
            throw new IllegalStateException("The current thread (" + Thread.currentThread().getName()
                    + ") holds no lock on '" + key + "', so it has no fencing token for it");
        }
        LongSupplier latest = null;
        if (held instanceof Token one) {
            latest = one.token();
        } else {
            for (LongSupplier each : several(held).values()) {
                latest = each; // the latest acquisition's
            }
        }
        long token = latest.getAsLong();
        if (token == 0) { // recorded by a Locker that has no tokens
            throw new IllegalStateException("The current thread's lock on '" + key + "' has no fencing token: the Redlock Locker "
                    + "(redis-lock.redlock.nodes) gives none, as its masters count tokens each on its own");
        }
        return token;
    }

    /**
     * For Locker implementations: records how to get the token of an acquisition by the calling thread, so that
     * {@link #current} finds it. Application code never calls it.
     *
     * @param hold  names the hold among others on the same key (its Redis key and owner)
     * @param token the hold's token, drawn when first asked for if the acquisition drew none; 0 for none at all (Redlock)
     */
    public static void record(String key, String hold, LongSupplier token) {
        Map<String, Object> held = HELD.get();
        Object known = held.get(key);
        if (known == null || known instanceof Token one && one.hold().equals(hold)) {
            held.put(key, new Token(hold, token));
        } else if (known instanceof Token other) {
            LinkedHashMap<String, LongSupplier> holds = new LinkedHashMap<>(4);
            holds.put(other.hold(), other.token());
            holds.put(hold, token);
            held.put(key, holds);
        } else {
            LinkedHashMap<String, LongSupplier> holds = several(known);
            holds.remove(hold);
            holds.put(hold, token);
        }
    }

    /** For Locker implementations: the calling thread's final release of {@code hold} ended its token. */
    public static void forget(String key, String hold) {
        Map<String, Object> held = HELD.get();
        Object known = held.get(key);
        if (known instanceof Token one) {
            if (one.hold().equals(hold)) {
                held.remove(key);
            }
        } else if (known != null) {
            LinkedHashMap<String, LongSupplier> holds = several(known);
            holds.remove(hold);
            if (holds.isEmpty()) {
                held.remove(key);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static LinkedHashMap<String, LongSupplier> several(Object held) {
        return (LinkedHashMap<String, LongSupplier>) held;
    }
}
