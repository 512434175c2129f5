package io.github.redislock.core;

import java.util.List;
import java.util.Set;

/** Extends leases in Redis for the watchdog. */
@FunctionalInterface
interface RenewalClient {

    /**
     * Extends every lock still owned to {@code leaseMillis}, in as few Redis calls as the topology allows.
     *
     * @return the locks whose owner no longer holds them; they were not touched
     * @throws RuntimeException when Redis could not be asked; the watchdog retries on its next tick
     */
    Set<WatchedLock> renew(List<WatchedLock> locks, long leaseMillis);
}
