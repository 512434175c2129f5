package io.github.redislock;

import java.time.Instant;
import java.util.function.Consumer;

import io.github.redislock.watchdog.WatchedLock;

/**
 * What this instance knows about one lock one owner holds: how often (so an unlock knows whether it
 * is the final one before asking Redis), with which lease, and whether the watchdog found it lost.
 */
final class Hold implements WatchedLock {

    final LockKeys keys;
    final String owner;
    final Instant since = Instant.now();
    /** For the hold time, immune to wall-clock changes. */
    final long sinceNanos = System.nanoTime();
    /** The owner thread's name, for diagnostics; holds are created on it. */
    final String thread = Thread.currentThread().getName();
    /** Written only by the owner. */
    volatile long count;
    /** The lease of the latest acquisition, or {@link Locker#WATCHDOG_LEASE}. */
    volatile long leaseMillis;
    volatile boolean watched;
    volatile boolean lost;
    private final Consumer<Hold> onLost;

    Hold(LockKeys keys, String owner, long count, long leaseMillis, Consumer<Hold> onLost) {
        this.keys = keys;
        this.owner = owner;
        this.count = count;
        this.leaseMillis = leaseMillis;
        this.onLost = onLost;
    }

    @Override
    public String redisKey() {
        return keys.name();
    }

    @Override
    public String ownerField() {
        return owner;
    }

    @Override
    public void lost() {
        lost = true;
        watched = false;
        onLost.accept(this);
    }

    record Id(String redisKey, String owner) {
    }

    Id id() {
        return new Id(keys.name(), owner);
    }
}
