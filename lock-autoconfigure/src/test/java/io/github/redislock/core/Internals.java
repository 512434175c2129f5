package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;


/**
 * What tests outside this package may do to a Locker's package-private parts: run a renewal tick now,
 * hold a release subscription open, and name the Redis keys a lock uses. Test code only; the library itself offers none of it.
 */
public final class Internals {

    private Internals() {
    }

    /** Runs one watchdog tick now, on the calling thread. */
    public static void renewNow(RedisLocker locker) {
        locker.watchdog.renewNow();
    }

    /** Listens for releases on {@code channel} until the returned subscription is closed. */
    public static AutoCloseable join(RedisLocker locker, String channel) {
        return locker.subscriptions.join(channel, null, null).join();
    }

    /** Channels the Locker's pub/sub connection is subscribed to now. */
    public static int subscribedChannelCount(RedisLocker locker) {
        return locker.subscriptions.subscribedChannelCount();
    }

    /** Threads of this Locker parked now in a wait for the plain lock on {@code key}. */
    public static int parkedWaiters(RedisLocker locker, String key) {
        return locker.subscriptions.parkedOn(LockKeys.of(locker.getKeyPrefix(), key).channel());
    }

    /** Every Redis key a plain lock on {@code key} may write (its hash, wait queue and waiters' deadlines), as the library names them. */
    public static java.util.List<String> plainLockKeys(String prefix, String key) {
        LockKeys keys = LockKeys.of(prefix, key);
        return java.util.List.of(keys.name(), keys.waitQueue(), keys.waitDeadlines());
    }

    /** Acquisitions of shared owners (tokens, handles) that have taken a turn and not ended it. */
    public static int ownerTurnsInLine(RedisLocker locker) {
        return locker.turns.inLine();
    }

    /** Waits of {@code locker} in progress now, parked or on an executor. */
    public static int waitsInProgress(RedisLocker locker) {
        return locker.lifecycle.waits.size();
    }

    /** Waits of {@code locker} that have a place in a wait queue now, as far as it knows (marked once a try's reply is in). */
    public static int queuedWaits(RedisLocker locker) {
        return locker.attempts.queuedWaitCount();
    }
}
