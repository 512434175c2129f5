package io.github.redislock;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fencing tokens of the locks the calling thread holds, for code that cannot reach the lock
 * object: a method run under {@code @DistributedLock}, or a repository several calls below the one
 * that took the lock. Every acquisition on a thread records its token here; the final release removes it.
 */
public final class FencingTokens {

    /** key -> (Redis key and owner of a hold -> its token), latest acquisition last; several Lockers may share a thread. */
    private static final ThreadLocal<Map<String, LinkedHashMap<String, Long>>> HELD = ThreadLocal.withInitial(HashMap::new);

    private FencingTokens() {
    }

    /**
     * The token of the calling thread's hold on {@code key} (the key as given to the Locker, without the prefix);
     * see {@link RedisLock#fencingToken()} for how a resource uses it and the Redis clock it relies on.
     *
     * @throws IllegalStateException when the calling thread holds no lock on {@code key}, or one without a token (Redlock)
     */
    public static long current(String key) {
        LinkedHashMap<String, Long> holds = HELD.get().get(key);
        if (holds == null) {
            throw new IllegalStateException("The current thread (" + Thread.currentThread().getName()
                    + ") holds no lock on '" + key + "', so it has no fencing token for it");
        }
        Long token = null;
        for (Long each : holds.values()) {
            token = each; // the latest acquisition's
        }
        if (token == 0) { // recorded by a Locker that has no tokens
            throw new IllegalStateException("The current thread's lock on '" + key + "' has no fencing token: the Redlock Locker "
                    + "(redis-lock.redlock.nodes) gives none, as its masters count tokens each on its own");
        }
        return token;
    }

    /**
     * For Locker implementations: records the token of an acquisition by the calling thread, so that
     * {@link #current} finds it. Application code never calls it.
     *
     * @param hold names the hold among others on the same key (its Redis key and owner)
     */
    public static void record(String key, String hold, long token) {
        // Sized for the usual one hold per key: the map is built anew by each first acquisition of the key.
        LinkedHashMap<String, Long> holds = HELD.get().computeIfAbsent(key, k -> new LinkedHashMap<>(2));
        holds.remove(hold);
        holds.put(hold, token);
    }

    /**
     * For Locker implementations: the calling thread's final release of {@code hold} ended its token. The
     * thread's map stays, empty, for its next acquisition: removing it cost a new map per lock and unlock.
     */
    public static void forget(String key, String hold) {
        Map<String, LinkedHashMap<String, Long>> held = HELD.get();
        LinkedHashMap<String, Long> holds = held.get(key);
        if (holds != null) {
            holds.remove(hold);
            if (holds.isEmpty()) {
                held.remove(key);
            }
        }
    }
}
