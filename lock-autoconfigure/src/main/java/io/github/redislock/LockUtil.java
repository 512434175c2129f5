package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Static access to the application's {@link Locker}, for code that is not a Spring bean. Every
 * method delegates to the Locker of the running application context; before that context has
 * created its beans, or after it closed, they throw {@link IllegalStateException}; else each throws what
 * the {@link Locker} method of its name throws.
 */
public final class LockUtil {

    private static volatile Locker locker;

    private LockUtil() {
    }

    /** Made available by {@link LockUtilBinding}; with several contexts, the latest one wins. */
    static void bind(Locker current) {
        locker = current;
    }

    static void unbind(Locker closing) {
        if (locker == closing) {
            locker = null;
        }
    }

    /** The Locker every method delegates to. */
    public static Locker locker() {
        Locker current = locker;
        if (current == null) {
            throw new IllegalStateException("LockUtil has no Locker: the application context with redis-lock has not started yet "
                    + "(or has closed). Use LockUtil after startup, or inject the Locker bean instead.");
        }
        return current;
    }

    public static void lock(String key) {
        locker().lock(key);
    }

    public static void lock(String key, int leaseSeconds) {
        locker().lock(key, leaseSeconds);
    }

    public static void lock(String key, TimeUnit unit, int leaseTime) {
        locker().lock(key, unit, leaseTime);
    }

    public static void lockInterruptibly(String key) throws InterruptedException {
        locker().lockInterruptibly(key);
    }

    public static boolean tryLock(String key) {
        return locker().tryLock(key);
    }

    public static boolean tryLock(String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return locker().tryLock(key, waitTime, leaseTime, unit);
    }

    public static boolean tryLockAs(String ownerToken, String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return locker().tryLockAs(ownerToken, key, waitTime, leaseTime, unit);
    }

    public static void unlockAs(String ownerToken, String key) {
        locker().unlockAs(ownerToken, key);
    }

    public static void unlock(String key) {
        locker().unlock(key);
    }

    public static boolean isLocked(String key) {
        return locker().isLocked(key);
    }

    public static boolean isHeldByCurrentThread(String key) {
        return locker().isHeldByCurrentThread(key);
    }

    public static int getHoldCount(String key) {
        return locker().getHoldCount(key);
    }

    public static long fencingToken(String key) {
        return locker().fencingToken(key);
    }

    public static RedisLock getLock(String key) {
        return locker().getLock(key);
    }

    public static RedisLock getFairLock(String key) {
        return locker().getFairLock(key);
    }

    public static RedisReadWriteLock getReadWriteLock(String key) {
        return locker().getReadWriteLock(key);
    }

    public static RedisMultiLock getMultiLock(String... keys) {
        return locker().getMultiLock(keys);
    }

    public static <T> T withLock(String key, Duration waitTime, Supplier<T> action) {
        return locker().withLock(key, waitTime, action);
    }

    public static void withLock(String key, Duration waitTime, Runnable action) {
        locker().withLock(key, waitTime, action);
    }
}
