package io.github.redislock.annotation;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import io.github.redislock.FencingTokens;

/**
 * What the innermost {@link DistributedLock} method running on the calling thread holds: its keys and
 * their fencing tokens, for code that passes the token on to the resource it protects
 * ({@code UPDATE ... WHERE fence < :token}).
 *
 * <p>Tokens are available while the method body runs on the thread that took the lock; a method
 * returning a future or a reactive type holds its lock under an owner token, not the thread, and
 * has none here.
 */
public final class CurrentLock {

    private static final ThreadLocal<Deque<List<String>>> INVOCATIONS = ThreadLocal.withInitial(ArrayDeque::new);

    private CurrentLock() {
    }

    /**
     * The keys of the innermost annotated invocation on this thread.
     *
     * @throws IllegalStateException outside an annotated method
     */
    public static List<String> keys() {
        List<String> keys = INVOCATIONS.get().peek();
        if (keys == null) {
            throw new IllegalStateException("No @DistributedLock method is running on thread " + Thread.currentThread().getName());
        }
        return keys;
    }

    /**
     * The fencing token of the innermost annotated invocation's lock; the first ask of a hold may block for
     * one round trip to Redis ({@link FencingTokens#current}).
     *
     * @throws IllegalStateException outside an annotated method, or when it locks several keys (use {@link #fencingToken(String)})
     * @throws io.github.redislock.LockLostException when the first ask finds Redis no longer has the hold
     */
    public static long fencingToken() {
        List<String> keys = keys();
        if (keys.size() != 1) {
            throw new IllegalStateException("The running @DistributedLock method locks " + keys + "; name the key: CurrentLock.fencingToken(key)");
        }
        return FencingTokens.current(keys.get(0));
    }

    /** The fencing token of one key of the innermost annotated invocation. */
    public static long fencingToken(String key) {
        if (!keys().contains(key)) {
            throw new IllegalStateException("The running @DistributedLock method does not lock '" + key + "', only " + keys());
        }
        return FencingTokens.current(key);
    }

    static void enter(List<String> keys) {
        INVOCATIONS.get().push(keys);
    }

    static void exit() {
        Deque<List<String>> invocations = INVOCATIONS.get();
        invocations.pop();
        if (invocations.isEmpty()) {
            INVOCATIONS.remove();
        }
    }
}
