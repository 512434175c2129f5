package io.github.redislock.core.renewal;

import java.util.List;
import java.util.Set;

/** Extends leases in Redis for the watchdog. */
public interface RenewalClient {

    /** Sends the calls that extend every lock still owned to {@code leaseMillis}; {@link Sent#lost()} awaits the replies (see {@link LockWatchdog}). */
    Sent send(List<WatchedLock> locks, long leaseMillis);

    @FunctionalInterface
    interface Sent {

        /** The locks whose owner no longer holds them (untouched); a {@link PartialRenewalException} when some calls failed. */
        Set<WatchedLock> lost();
    }

    /** Some calls of a tick failed while others reached Redis: the locks those found gone are still reported, and the tick failed. */
    class PartialRenewalException extends RuntimeException {

        /** Found gone by the calls that answered. */
        public final transient Set<WatchedLock> lost;
        /** The locks whose call failed: neither renewed nor known lost. */
        public final transient Set<WatchedLock> unrenewed;

        public PartialRenewalException(String message, Throwable cause, Set<WatchedLock> lost, Set<WatchedLock> unrenewed) {
            super(message, cause);
            this.lost = Set.copyOf(lost);
            this.unrenewed = Set.copyOf(unrenewed);
        }
    }
}
