package io.github.redislock.core.hold;

import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.renewal.WatchedLock;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.Locker;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockNameScope;

import java.lang.ref.WeakReference;
import java.time.Instant;
import java.util.function.BiConsumer;


/**
 * What this instance knows about one lock one owner holds: how often (so an unlock knows whether it
 * is the final one before asking Redis), with which lease and fencing token, and whether the watchdog
 * found it lost.
 */
public final class Hold implements WatchedLock {

    public final LockKeys keys;
    public final String owner;
    /** Names the hold among the thread's fencing tokens ({@link FencingTokens}); both sides of a read-write lock share it. */
    final String tokenHolder;
    /** How it was first taken; decides the release script (a fair release wakes the next in the queue). */
    public final LockKind kind;
    /** The fencing token of the first acquisition; reentrant acquisitions keep it. */
    public final long token;
    final Instant since = Instant.now();
    /** For the hold time, immune to wall-clock changes. */
    final long sinceNanos = System.nanoTime();
    /** The owner thread's name, for diagnostics; holds are created on it. */
    final String thread = Thread.currentThread().getName();
    /**
     * The thread that owns the hold, so the watchdog can stop renewing it once that thread has ended;
     * null for a token owner, whose hold outlives the thread that took it. Weak: a hold must not keep
     * an ended thread's object alive (a cleared reference means it ended).
     */
    private final WeakReference<Thread> ownerThread;
    /** Written only by the owner. */
    public volatile long count;
    /** The longest lease of its acquisitions, or {@link Locker#WATCHDOG_LEASE}. */
    public volatile long leaseMillis;
    /**
     * For a hold with a lease, a {@link System#nanoTime()} past which Redis has surely ended it (taken
     * after the reply, so later than Redis's own deadline); {@link Long#MAX_VALUE} under the watchdog.
     */
    volatile long leaseEndsNanos = Long.MAX_VALUE;
    public volatile boolean watched;
    public volatile boolean lost;
    /**
     * Unlocks still owed to a lost hold of the same owner that this one replaced: each reports the loss
     * and leaves Redis alone. Without them, the lost hold's unlock would release this newer hold (for an
     * owner token on several threads, under another thread that believes it holds the lock).
     */
    long owedToLost;
    /** The name metrics give it, from the {@link LockNameScope} it was taken in; null lets the namer decide. */
    volatile String name;
    /** Hears the hold's loss and why it was lost. */
    private final BiConsumer<Hold, String> onLost;

    /** @param threadOwned whether {@code owner} is the calling thread (not a token owner) */
    public Hold(LockKeys keys, String owner, LockKind kind, long token, long count, long leaseMillis, boolean threadOwned,
         BiConsumer<Hold, String> onLost) {
        this.keys = keys;
        this.owner = owner;
        this.tokenHolder = keys.name() + " " + owner;
        this.kind = kind;
        this.token = token;
        this.count = count;
        this.leaseMillis = leaseMillis;
        this.onLost = onLost;
        this.ownerThread = threadOwned ? new WeakReference<>(Thread.currentThread()) : null;
    }

    /** Whether Redis has ended this hold's lease by now, as far as the local clock can tell. */
    public boolean leaseSurelyEnded() {
        return leaseMillis > 0 && System.nanoTime() - leaseEndsNanos > 0;
    }

    /** The lease a release that leaves holds in place sets again: the watchdog's for a watched hold, else its own. */
    public long restoreLease(LockWatchdog watchdog) {
        return watched ? watchdog.timeout().toMillis() : leaseMillis;
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
        lostBecause(LockLostEvent.EXPIRED_OR_DELETED);
    }

    @Override
    public String terminatedOwnerThread() {
        if (ownerThread == null) {
            return null;
        }
        Thread owning = ownerThread.get();
        return owning == null || !owning.isAlive() ? thread : null;
    }

    @Override
    public void ownerThreadTerminated() {
        lostBecause(LockLostEvent.OWNER_THREAD_TERMINATED);
    }

    private void lostBecause(String reason) {
        lost = true;
        watched = false;
        onLost.accept(this, reason);
    }

    record Id(String redisKey, String owner, LockKind slot) {
    }

    Id id() {
        return new Id(keys.name(), owner, kind.holdSlot());
    }
}
