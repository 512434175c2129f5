package io.github.redislock.core.renewal;

/** A lock held without a lease, whose expiry the watchdog keeps pushing back until it is released. */
public interface WatchedLock {

    String redisKey();

    /** The owner that must still hold the lock for a renewal to count: its hash field, or its member of {@link #leaseSet()}. */
    String ownerField();

    /** The sorted set of per-owner lease deadlines (a read-write lock's readers each end alone), or null when the key's expiry is the lease. */
    default String leaseSet() {
        return null;
    }

    /** Called once, on the watchdog thread, as it stops renewing the lock; {@code reason} is a {@link io.github.redislock.LockLostEvent} reason. */
    void lost(String reason);

    /** The name of the owner thread once it ended without releasing the lock (nobody can then), else null. */
    default String terminatedOwnerThread() {
        return null;
    }
}
