package io.github.redislock.core;

import java.time.Duration;
import java.time.Instant;

/**
 * What the watchdog of a Locker reports about its renewals, for health checks and diagnostics: a
 * read-only view, so that nothing outside this package can watch, unwatch or renew a lock.
 */
public interface WatchdogState {

    /** How long a watched lock lives in Redis without renewal; also the lease each renewal sets. */
    Duration timeout();

    /** How many locks are renewed now. */
    int watchedCount();

    /**
     * When the last renewal tick succeeded and found every lock it renewed still held, or null when none
     * has. A tick that finds a lock gone does not count: what it renewed is not a sign that every watched
     * lock is still held.
     */
    Instant lastRenewal();

    /** Renewal ticks that failed in a row (Redis unreachable); 0 after a success. */
    int consecutiveFailures();

    /**
     * When the current run of failed ticks began, or null when the last tick succeeded (or had nothing
     * to renew). Locks are at risk once this is longer ago than the timeout.
     */
    Instant failingSince();

    /** A Locker of this library: every one renews its holds without a lease with a watchdog. */
    interface Source {

        /** The state of this Locker's watchdog. */
        WatchdogState watchdogState();
    }
}
