package io.github.redislock.core.hold;

import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.renewal.WatchedLock;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.Locker;
import io.github.redislock.LockNameScope;

import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.function.LongSupplier;

/** What this instance knows of one owner's hold of one lock: so an unlock knows whether it is the final one before asking Redis. */
public final class Hold implements WatchedLock, LongSupplier {

    public final LockKeys keys;
    public final String owner;
    /** How it was first taken; decides the release script. */
    public final LockKind kind;
    final Id id;
    /** 0 until drawn (a blocking locker's everyday acquisition draws none); set once, by its acquisition or its first ask. */
    public volatile long token;
    /** Taken by its first try (not after a blocked one, nor by a hand-off): its final release tries the short one. */
    final boolean takenUncontended;
    final long sinceNanos = System.nanoTime();
    final String thread = Thread.currentThread().getName();
    /** Null for a token owner, whose hold outlives the thread that took it; weak, so an ended thread is not kept alive. */
    private final WeakReference<Thread> ownerThread;
    /** Written only by the owner. */
    public volatile long count;
    /** The longest lease of its acquisitions, or {@link Locker#WATCHDOG_LEASE}. */
    public volatile long leaseMillis;
    /** For a hold with a lease, a {@link System#nanoTime()} past which Redis has surely ended it; {@link Long#MAX_VALUE} under the watchdog. */
    volatile long leaseEndsNanos = Long.MAX_VALUE;
    public volatile boolean watched;
    public volatile boolean lost;
    /**
     * Unlocks still owed to a lost hold of the same owner that this one replaced: each reports the loss
     * and leaves Redis alone, so the lost hold's unlock does not release this newer one.
     */
    long owedToLost;
    /** The name metrics give it, from the {@link LockNameScope} it was taken in; null lets the namer decide. */
    final String name = LockNameScope.current();
    private final HeldLocks holds;

    Hold(Id id, LockKeys keys, LockKind kind, long token, long count, long leaseMillis, boolean threadOwned, boolean takenUncontended, HeldLocks holds) {
        this.keys = keys;
        this.owner = id.owner();
        this.kind = kind;
        this.id = id;
        this.token = token;
        this.takenUncontended = takenUncontended;
        this.count = count;
        this.leaseMillis = leaseMillis;
        this.holds = holds;
        this.ownerThread = threadOwned ? new WeakReference<>(Thread.currentThread()) : null;
    }

    /** Whether Redis may still have it: a leased hold whose lease surely ran out no longer counts (nothing reports its end). */
    public boolean live() {
        return !lost && (watched || leaseMillis <= 0 || System.nanoTime() - leaseEndsNanos <= 0);
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
        return kind == LockKind.READ || kind == LockKind.WRITE ? keys.leases() : null;
    }

    @Override
    public void lost(String reason) {
        lost = true;
        watched = false;
        holds.publishLost(this, reason);
    }

    private static final AtomicLongFieldUpdater<Hold> TOKEN = AtomicLongFieldUpdater.newUpdater(Hold.class, "token");

    /** The fencing token; one its acquisition did not draw is drawn now ({@code token.lua}, which checks the hold), the first drawn kept. */
    @Override
    public long getAsLong() {
        if (holds.lostEvents.isShutdown()) { // the Locker closed (which ends that thread); FencingTokens still reaches a hold it forgot
            throw HeldLocks.closedException(keys.key());
        }
        long drawn = token != 0 ? token : holds.commands.await(holds.commands.tokenAsync(keys, owner));
        if (drawn < 0) {
            throw holds.lostException(this, "Redis no longer had it when its fencing token was asked for");
        }
        return TOKEN.compareAndSet(this, 0, drawn) ? drawn : token;
    }

    @Override
    public String terminatedOwnerThread() {
        if (ownerThread == null) {
            return null;
        }
        Thread owning = ownerThread.get();
        return owning == null || !owning.isAlive() ? thread : null;
    }

    record Id(String redisKey, String owner, LockKind slot) {
    }
}
