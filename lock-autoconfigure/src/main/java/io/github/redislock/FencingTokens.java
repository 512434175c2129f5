package io.github.redislock;

import java.util.HashMap;
import java.util.Map;

/**
 * The fencing tokens of the locks the calling thread holds, for code that cannot reach the lock
 * object: a method run under {@code @DistributedLock}, or a repository several calls below the one
 * that took the lock. Every acquisition on a thread records its token here; the final release removes it.
 */
public final class FencingTokens {

    private static final ThreadLocal<Map<String, Long>> HELD = ThreadLocal.withInitial(HashMap::new);

    private FencingTokens() {
    }

    /**
     * The token of the calling thread's hold on {@code key} (the key as given to the Locker, without the prefix).
     *
     * @throws IllegalStateException when the calling thread holds no lock on {@code key}
     */
    public static long current(String key) {
        Long token = HELD.get().get(key);
        if (token == null) {
            throw new IllegalStateException("The current thread (" + Thread.currentThread().getName()
                    + ") holds no lock on '" + key + "', so it has no fencing token for it");
        }
        return token;
    }

    static void record(String key, long token) {
        HELD.get().put(key, token);
    }

    static void forget(String key) {
        Map<String, Long> held = HELD.get();
        held.remove(key);
        if (held.isEmpty()) {
            HELD.remove();
        }
    }
}
