package io.github.redislock.watchdog;

/** A lock held without a lease, whose expiry the watchdog keeps pushing back until it is released. */
public interface WatchedLock {

    /** The Redis key of the lock. */
    String redisKey();

    /** The owner field that must still be present in the lock hash for a renewal to count. */
    String ownerField();

    /** Called once, on the watchdog thread, when a renewal finds the lock no longer owned. */
    void lost();
}
