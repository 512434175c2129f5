package io.github.redislock.core.renewal;

import java.util.List;
import java.util.Set;

/** Extends leases in Redis for the watchdog. */
@FunctionalInterface
public interface RenewalClient {

    /**
     * Sends the calls that extend every lock still owned to {@code leaseMillis}, in as few as the topology
     * allows, without waiting for Redis: {@link Sent#lost()} awaits the replies, so an unlock never waits
     * for a hanging node (see {@link LockWatchdog}).
     */
    Sent send(List<WatchedLock> locks, long leaseMillis);

    @FunctionalInterface
    interface Sent {

        /**
         * @return the locks whose owner no longer holds them; they were not touched
         * @throws PartialRenewalException when some calls failed; it carries what the others found lost
         */
        Set<WatchedLock> lost();
    }
}
