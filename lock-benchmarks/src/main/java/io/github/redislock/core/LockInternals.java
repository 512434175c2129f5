package io.github.redislock.core;

import io.github.redislock.core.script.LeaseRenewals;
import io.github.redislock.core.script.LockKeys;

/**
 * Facts of the library the scale scenarios check against, read from its package-private code so they
 * stay true when the library changes: the renewal batch size and the Redis key of a lock's wait queue.
 *
 * <p>A measuring hook for {@code lock-benchmarks}, like {@link CeilingCalls}; applications have no use for it.
 */
public final class LockInternals {

    private LockInternals() {
    }

    /** Most locks one renewal script call renews ({@code LeaseRenewals.MAX_RENEWAL_BATCH}); in a cluster, one batch never spans two hash slots. */
    public static int renewalBatchSize() {
        return LeaseRenewals.MAX_RENEWAL_BATCH;
    }

    /** The list in which a plain lock queues its waiters, oldest first, for a release to hand the lock to. */
    public static String waitQueueKey(String prefix, String key) {
        return LockKeys.of(prefix, key).waitQueue();
    }
}
