package io.github.redislock.core.renewal;

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

    /**
     * The name of the thread that owns the lock when that thread has ended without releasing it; null
     * while it runs, and always for a lock owned by a token rather than a thread. Nobody can release
     * such a lock, so the watchdog stops renewing it and Redis frees it within the timeout.
     */
    default String terminatedOwnerThread() {
        return null;
    }

    /** Called once, on the watchdog thread, after it stopped renewing the lock because its owner thread ended. */
    default void ownerThreadTerminated() {
        lost();
    }
}
