package io.github.redislock.core.renewal;

import java.util.List;
import java.util.Set;

/** Extends leases in Redis for the watchdog. */
@FunctionalInterface
public interface RenewalClient {

    /**
     * Extends every lock still owned to {@code leaseMillis}, in as few Redis calls as the topology allows.
     *
     * @return the locks whose owner no longer holds them; they were not touched
     * @throws RuntimeException when Redis could not be asked; the watchdog retries on its next tick
     */
    Set<WatchedLock> renew(List<WatchedLock> locks, long leaseMillis);

    /**
     * {@link #renew} in two steps: the calls are sent when this returns, and {@link Sent#lost()} awaits
     * the replies, so a client whose sending never waits for Redis never makes an unlock wait for a
     * hanging node (see {@link LockWatchdog}). By default the renewal is done here in full.
     */
    default Sent send(List<WatchedLock> locks, long leaseMillis) {
        Set<WatchedLock> lost = renew(locks, leaseMillis);
        return () -> lost;
    }

    @FunctionalInterface
    interface Sent {

        /** @throws PartialRenewalException when some calls failed; it carries what the others found lost */
        Set<WatchedLock> lost();
    }
}
