package io.github.redislock.watchdog;

/** A lock held without a lease, whose expiry the watchdog keeps pushing back until it is released. */
public interface WatchedLock {

    /** The Redis key of the lock. */
    String redisKey();

    /** The owner that must still hold the lock for a renewal to count: its hash field, or its member of {@link #leaseSet()}. */
    String ownerField();

    /**
     * The sorted set that keeps one lease deadline per owner (a read-write lock, where each reader's
     * lease must end alone), or null when the lock hash's own expiry is the lease.
     */
    default String leaseSet() {
        return null;
    }

    /** Called once, on the watchdog thread, when a renewal finds the lock no longer owned. */
    void lost();
}
