package io.github.redislock;

import java.time.Instant;
import java.util.function.Consumer;

import io.github.redislock.watchdog.WatchedLock;

/**
 * What this instance knows about one lock one owner holds: how often (so an unlock knows whether it
 * is the final one before asking Redis), with which lease and fencing token, and whether the watchdog
 * found it lost.
 */
final class Hold implements WatchedLock {

    final LockKeys keys;
    final String owner;
    /** How it was first taken; decides the release script (a fair release wakes the next in the queue). */
    final LockKind kind;
    /** The fencing token of the first acquisition; reentrant acquisitions keep it. */
    final long token;
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
    /** The name metrics give it, from the {@link LockNameScope} it was taken in; null lets the namer decide. */
    volatile String name;
    private final Consumer<Hold> onLost;

    Hold(LockKeys keys, String owner, LockKind kind, long token, long count, long leaseMillis, Consumer<Hold> onLost) {
        this.keys = keys;
        this.owner = owner;
        this.kind = kind;
        this.token = token;
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
    public String leaseSet() {
        return kind.readWrite() ? keys.leases() : null;
    }

    @Override
    public void lost() {
        lost = true;
        watched = false;
        onLost.accept(this);
    }

    record Id(String redisKey, String owner, LockKind slot) {
    }

    Id id() {
        return new Id(keys.name(), owner, kind.holdSlot());
    }
}
