package io.github.redislock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.function.Supplier;

/** What the watchdog of a Locker reports about its renewals, for health checks and diagnostics. */
public interface WatchdogState {

    /** How long a watched lock lives in Redis without renewal; also the lease each renewal sets. */
    Duration timeout();

    int watchedCount();

    /** When the last renewal tick succeeded (every call answered) and found every lock it renewed still held, or null when none has. */
    Instant lastRenewal();

    /** {@link System#nanoTime()} as the tick of {@link #lastRenewal} was sent, whose leases run from then; read it after a non-null lastRenewal. */
    long lastRenewalSentNanos();

    /** The calling thread's hold of plain lock {@code key}, found once: each get is {@link System#nanoTime()} as the last tick that renewed it was sent, its lease running from then (one map look, for a leader's {@code isLeader()}); empty while none has, or once released or lost. */
    Supplier<OptionalLong> renewalsOfHeld(String key);

    /** How many locks the watchdog stopped renewing so far (found gone, or their owner thread ended). */
    long stoppedRenewing();

    /** Renewal ticks that failed in a row (Redis unreachable); 0 after a success. */
    int consecutiveFailures();

    /** When the current run of failed ticks began, or null; locks are at risk once that is longer ago than the timeout. */
    Instant failingSince();

    /** {@link System#nanoTime()} as the run of {@link #failingSince} began, which no wall-clock step moves; read it after a non-null failingSince. */
    long failingSinceNanos();

    /** Whether its Locker is closed or closing: it takes no lock any more (a leader's candidacy on it could never lead). */
    boolean lockerClosed();

    /** A Locker of this library, whose watchdog renews its holds without a lease. */
    interface Source {

        WatchdogState watchdogState();
    }
}
