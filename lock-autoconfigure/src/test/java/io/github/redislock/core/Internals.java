package io.github.redislock.core;


/**
 * What tests outside this package may do to a Locker's package-private parts: run a renewal tick now
 * and hold a release subscription open. Test code only; the library itself offers none of it.
 */
public final class Internals {

    private Internals() {
    }

    /** Runs one watchdog tick now, on the calling thread. */
    public static void renewNow(RedisLocker locker) {
        locker.watchdog().renewNow();
    }

    /** Listens for releases on {@code channel} until the returned subscription is closed. */
    public static AutoCloseable join(RedisLocker locker, String channel) {
        return locker.subscriptions().join(channel);
    }

    /** Channels the Locker's pub/sub connection is subscribed to now. */
    public static int subscribedChannelCount(RedisLocker locker) {
        return locker.subscriptions().subscribedChannelCount();
    }
}
