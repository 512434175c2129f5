package io.github.redislock.core.wait;

import io.github.redislock.core.hold.HeldLocks;
import io.github.redislock.core.hold.Hold;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.core.script.ScriptTransport;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BooleanSupplier;

import io.github.redislock.LockRedisException;

/**
 * The {@link LockAttempt} of each lock kind: a single plain lock keeps a place in the lock's wait queue
 * (a release hands it over), a multi-lock takes its hash-slot groups all or nothing, a fair lock queues
 * in arrival order, and a read-write lock looks again on its own.
 */
public final class LockAttempts {

    private final LockCommands commands;
    private final LockWatchdog watchdog;
    private final HeldLocks holds;
    /** Waits that may have a place in a wait queue now; whoever removes one (its wait, a closing Locker) withdraws its place. */
    private final Set<QueuedLock> queuedWaits = ConcurrentHashMap.newKeySet();
    /** Set before the Locker calls {@link #withdrawQueued()}, so no wait queues after that. */
    private final BooleanSupplier closing;
    private final OwnerTurns turns;
    /** Numbers each queuing wait, so a hand-off meant for an owner's earlier wait is never taken for its current one. */
    private final AtomicLong waitIds = new AtomicLong();
    /** Where releases announce hand-offs to this instance's waiters, as queue members carry it. */
    private final String inboxField;
    /** How long a waiter without a queue place parks at most: a hand-off to a queued waiter and an expiry publish nothing. */
    private final long unqueuedRecheckMillis;
    /** Per bucket of lock names, until when (nanoTime; 0: never) a plain wait's first try queues at once: one was blocked, a queue place's time ago at most. */
    private final AtomicLongArray contendedUntil = new AtomicLongArray(64);

    public LockAttempts(LockCommands commands, LockWatchdog watchdog, HeldLocks holds, String inbox, OwnerTurns turns, BooleanSupplier closing) {
        this.commands = commands;
        this.watchdog = watchdog;
        this.holds = holds;
        this.closing = closing;
        this.turns = turns;
        this.inboxField = LockCommands.inboxField(inbox);
        this.unqueuedRecheckMillis = watchdog.timeout().toMillis() / 9;
    }

    public int queuedWaitCount() {
        return queuedWaits.size();
    }

    /** Withdraws every queued wait, so no release hands a lock to a waiter that is going away (it would stay taken for the claim lease). */
    public void withdrawQueued() {
        for (QueuedLock wait : queuedWaits) {
            try {
                if (wait.unmarkQueued()) { // unless the wait has already let go of it
                    commands.await(wait.withdrawAsync());
                }
            } catch (RuntimeException e) {
                HeldLocks.LOCKER_LOG.warn("Could not withdraw a queued wait of a closing Locker; its place expires by itself", e);
            }
        }
    }

    public LockAttempt plain(List<LockKeys> keys, String owner, long leaseMillis, long redisLease, boolean sharedOwner) {
        if (keys.size() == 1) {
            return queuing(LockKind.PLAIN, keys.get(0), owner, leaseMillis, redisLease, sharedOwner, false);
        }
        List<List<LockKeys>> groups = HeldLocks.bySlot(keys, LockKeys::name);
        return queue -> tryGroups(groups, 0, queue, owner, leaseMillis, redisLease, new ArrayList<>(), new ArrayList<>());
    }

    /** How long a blocked single lock keeps its queue place unless it tries again: a waiter that died is skipped soon. */
    public static long keepPlaceMillis(long watchdogTimeoutMillis) {
        return Math.max(3, watchdogTimeoutMillis / 3);
    }

    /** A single plain or fair lock; {@code sharedOwner}: whether {@code owner} may acquire from several threads at once (they then take turns). */
    public LockAttempt queuing(LockKind kind, LockKeys keys, String owner, long leaseMillis, long redisLease, boolean sharedOwner, boolean drawToken) {
        return new QueuedLock(kind, keys, owner, leaseMillis, redisLease, sharedOwner, drawToken);
    }

    /**
     * A single plain or fair lock, which keeps a place in the lock's wait queue: whoever stops the wait first, the
     * waiting thread or a closing Locker, withdraws it, once; a (plain) hand-off is taken only by a wait that still had it.
     */
    private final class QueuedLock implements LockAttempt {
        private final LockKind kind;
        private final boolean fair;
        private final LockKeys keys;
        private final String owner;
        private final long leaseMillis;
        private final long redisLease;
        private final boolean sharedOwner;
        /** A lock handle's: a free plain lock's token is drawn with it, as the handle must never block to tell it. */
        private final boolean drawToken;
        private final long keepPlace;
        private final long claimLease;
        /** Plain only: a release does not hand a fair lock over. */
        private String waitName;
        private String member;
        /** Whether a try asked for a place: every later one may find the member queued (also after a lost reply), and takes it out. */
        private volatile boolean placeSought;
        /**
         * Whether a try went out after one that asked for a place, since the wait last heard of a hand-off:
         * when the hand-off's claim lease ended before the wait read it and another owner took the lock,
         * that try queued the member again, and taking the hand-off also takes that place out.
         */
        private volatile boolean triedWhileQueued;
        /** Whether the last try was sent as the owner's first hold: a hold its lost reply took is nobody's but this wait's. */
        private volatile boolean lastTryFirstHold;
        /** Whether the last try asked for a place: its lost reply may have queued it. */
        private volatile boolean lastTryQueued;

        QueuedLock(LockKind kind, LockKeys keys, String owner, long leaseMillis, long redisLease, boolean sharedOwner, boolean drawToken) {
            this.kind = kind;
            this.fair = kind == LockKind.FAIR;
            this.keys = keys;
            this.owner = owner;
            this.leaseMillis = leaseMillis;
            this.redisLease = redisLease;
            this.sharedOwner = sharedOwner;
            this.drawToken = drawToken;
            long watchdogMillis = watchdog.timeout().toMillis();
            this.keepPlace = fair ? watchdogMillis : keepPlaceMillis(watchdogMillis);
            this.claimLease = Math.min(redisLease, watchdogMillis);
        }

        @Override
        public OwnerTurns.Turn turn() {
            return turns.take(keys.name(), owner, sharedOwner);
        }

        @Override
        public CompletableFuture<LockCommands.Acquisition> send(boolean queue) {
            List<LockKeys> group = List.of(keys);
            boolean[] firstHolds = holds.firstHolds(group, owner);
            lastTryFirstHold = firstHolds[0];
            // Unless contended lately, a wait's first try sends what a tryLock sends, marking a lock it finds held, and queues only when blocked
            return queue && !fair && !placeSought && contendedUntil.get(contendedBucket()) - System.nanoTime() < 0
                    ? commands.acquireAsync(group, owner, redisLease, firstHolds, 0, null, false, true, drawToken).thenCompose(marked -> marked.acquired()
                            ? CompletableFuture.completedFuture(marked) : acquire(group, firstHolds, true))
                    : acquire(group, firstHolds, queue);
        }

        private int contendedBucket() {
            return keys.name().hashCode() & (contendedUntil.length() - 1);
        }

        private CompletableFuture<LockCommands.Acquisition> acquire(List<LockKeys> group, boolean[] firstHolds, boolean queue) {
            boolean queuedBefore = placeSought;
            triedWhileQueued |= queue && queuedBefore;
            placeSought |= queue;
            lastTryQueued = queue;
            return fair ? commands.acquireAsync(kind, keys, owner, redisLease, queue ? keepPlace : 0, firstHolds[0], false)
                    : commands.acquireAsync(group, owner, redisLease, firstHolds, queue ? keepPlace : 0, queue ? member() : null, queuedBefore, queue, drawToken);
        }

        /** Marks the wait queued only now that its reply is in: a close withdraws no place it did not see, so a try it missed gives back its take. */
        @Override
        public LockAttempt.Blocked settle(Object answer) {
            if (!fair && closing.getAsBoolean()) {
                giveBackClosing();
            }
            LockCommands.Acquisition attempt = (LockCommands.Acquisition) answer;
            if (attempt.acquired()) {
                unmarkQueued();
                holds.acquired(keys, owner, kind, attempt.holdCounts()[0], attempt.tokens()[0], leaseMillis, !triedWhileQueued);
                return null;
            }
            if (lastTryQueued && !markQueued()) { // the call that found it held asked for a place
                giveBackClosing();
            }
            contendedUntil.set(contendedBucket(), System.nanoTime() + keepPlace * 1_000_000);
            // Come back before the place in the queue lapses, as the watchdog does for a lease.
            String channel = fair ? keys.turnChannelPrefix() + owner : keys.channel();
            return new LockAttempt.Blocked(channel, recheckAfter(attempt.holderTtlMillis(), keepPlace / 3));
        }

        @Override
        public String waitName() {
            return member() == null ? null : waitName;
        }

        /** Named on first use, by the call that queues or as the wait listens: a try that cannot queue (tryLock without a wait) needs no name. */
        private String member() {
            if (member == null && !fair) {
                waitName = waitIds.incrementAndGet() + ":" + owner;
                member = LockCommands.queueMember(inboxField, waitName, claimLease);
            }
            return member;
        }

        @Override
        public HandOff handedOver(long token) {
            if (!unmarkQueued()) {
                return HandOff.WITHDRAWN; // a closing locker withdraws the place, which passes this lock on
            }
            // One more round trip, only for a lease longer than the watchdog timeout, with replica-sync, or after triedWhileQueued.
            String requeued = triedWhileQueued ? member : null;
            triedWhileQueued = false;
            if (!commands.await(commands.confirmHandOffAsync(keys, owner, redisLease, claimLease, requeued))) {
                HeldLocks.LOCKER_LOG.warn("The hand-off of " + kind.describe(keys.name()) + " to " + owner + " ran out its claim lease of "
                        + claimLease + " ms before the waiter could extend it; waiting on");
                return HandOff.EXPIRED;
            }
            holds.acquired(keys, owner, kind, 1, token, leaseMillis, false);
            return HandOff.HELD;
        }

        /** A plain wait withdraws with its own member, which also passes on a lock handed to it or releases a hold its try took. */
        CompletableFuture<Void> withdrawAsync() {
            return fair ? commands.leaveFairQueueAsync(keys, owner) : commands.withdrawAsync(keys, owner, member(), redisLease).thenApply(handedOver -> null);
        }

        /**
         * After a lost reply, also gives back the place or first hold its try may have taken; a plain re-entry leaves only
         * the place, through an owner no field can be ({@code release.lua}): the hold the client knows of is not this wait's.
         */
        @Override
        public CompletableFuture<Void> abandon(boolean replyLost) {
            if (fair) {
                CompletableFuture<Void> left = unmarkQueued() || replyLost && lastTryQueued ? withdrawAsync() : OwnerTurns.NOW;
                return replyLost && lastTryFirstHold
                        ? left.thenCompose(done -> commands.releaseAsync(kind, keys, owner, redisLease)).thenApply(holdsLeft -> null) : left;
            }
            if (unmarkQueued() || replyLost && lastTryFirstHold) {
                return withdrawAsync();
            }
            return replyLost && lastTryQueued ? commands.withdrawAsync(keys, "", member(), redisLease).thenApply(wasQueued -> null) : OwnerTurns.NOW;
        }

        /** @return false when the Locker closes: read after the add, as close() reads the waits after setting it */
        private boolean markQueued() {
            queuedWaits.add(this);
            if (closing.getAsBoolean()) {
                unmarkQueued();
                return false;
            }
            return true;
        }

        /** The locker closes as a try settles: withdraws what the try got and ends the wait. */
        private void giveBackClosing() {
            unmarkQueued();
            commands.await(withdrawAsync());
            lastTryFirstHold = false; // withdrawn here: the wait's abandon has nothing left to do
            lastTryQueued = false;
            throw new IllegalStateException("Locker is closed (its application context has shut down) while taking " + kind.describe(keys.key()));
        }

        /** @return whether it may have had a place, which the caller now withdraws (or, on a hand-off, takes) */
        boolean unmarkQueued() {
            return queuedWaits.remove(this);
        }
    }

    /** Takes a multi-lock's slot groups one after another; what blocks or fails a group gives back the groups before it when the try settles. */
    private CompletableFuture<LockAttempt.Try> tryGroups(List<List<LockKeys>> groups, int index, boolean queue, String owner, long leaseMillis,
                                                         long redisLease, List<LockKeys> taken, List<LockCommands.Acquisition> results) {
        List<LockKeys> group = groups.get(index);
        boolean[] firstHolds = holds.firstHolds(group, owner);
        return commands.acquireAsync(group, owner, redisLease, firstHolds, 0, null, false, queue, false).handle((attempt, failure) -> {
            if (failure != null || !attempt.acquired()) {
                for (int i = 0; failure != null && i < group.size(); i++) {
                    if (firstHolds[i]) { // the lost reply may have taken it: only this try can give it back
                        taken.add(group.get(i));
                    }
                }
                LockAttempt.Blocked blocked = failure != null ? null : new LockAttempt.Blocked(group.get(attempt.blockedIndex()).channel(),
                        recheckAfter(attempt.holderTtlMillis(), unqueuedRecheckMillis));
                return CompletableFuture.<LockAttempt.Try>completedFuture(() -> {
                    giveBack(taken, owner, redisLease);
                    if (failure != null) {
                        throw ScriptTransport.unchecked(failure);
                    }
                    return blocked;
                });
            }
            taken.addAll(group);
            results.add(attempt);
            if (index + 1 < groups.size()) {
                return tryGroups(groups, index + 1, queue, owner, leaseMillis, redisLease, taken, results);
            }
            return CompletableFuture.<LockAttempt.Try>completedFuture(() -> {
                for (int g = 0; g < groups.size(); g++) {
                    for (int i = 0; i < groups.get(g).size(); i++) {
                        holds.acquired(groups.get(g).get(i), owner, LockKind.PLAIN, results.get(g).holdCounts()[i], results.get(g).tokens()[i],
                                leaseMillis, false);
                    }
                }
                return null;
            });
        }).thenCompose(next -> next);
    }

    /** Undoes the part of a multi-lock taken before a later slot group was found held (or its reply lost). */
    private void giveBack(List<LockKeys> taken, String owner, long redisLease) {
        for (LockKeys keys : taken) {
            Hold earlier = holds.get(keys.name(), owner, LockKind.PLAIN);
            long restore = earlier == null ? redisLease : earlier.restoreLease(watchdog);
            try {
                commands.await(commands.releaseAsync(List.of(keys), owner, new long[] {restore}, new long[1], null, false));
            } catch (LockRedisException e) {
                HeldLocks.LOCKER_LOG.warn("Could not give back " + keys.name() + " after a partial multi-lock; it is freed when its lease of "
                        + redisLease + " ms ends", e);
            }
        }
    }

    public LockAttempt readWrite(LockKind kind, LockKeys keys, String owner, long leaseMillis, long redisLease) {
        if (kind == LockKind.WRITE && holds.holdsLive(keys, owner, LockKind.READ) && !holds.holdsLive(keys, owner, LockKind.WRITE)) {
            throw new IllegalMonitorStateException("Cannot take the write lock of '" + keys.key() + "' while holding its read lock: "
                    + "the writer would wait for its own read hold forever. Release the read lock first (taking the read lock "
                    + "while holding the write lock is fine).");
        }
        return queue -> {
            boolean firstOfKind = !holds.holdsLive(keys, owner, kind);
            boolean holdsNothing = firstOfKind && !holds.holdsLive(keys, owner, kind == LockKind.READ ? LockKind.WRITE : LockKind.READ);
            return commands.acquireAsync(kind, keys, owner, redisLease, 0, holdsNothing, firstOfKind).<LockAttempt.Try>handle((attempt, failure) -> () -> {
                if (failure != null) {
                    RuntimeException e = ScriptTransport.unchecked(failure);
                    if (firstOfKind && e instanceof LockRedisException) { // the lost reply may have taken it: only this try can give it back
                        try {
                            commands.await(commands.releaseAsync(kind, keys, owner, 0));
                        } catch (LockRedisException giveBackFailure) {
                            e.addSuppressed(giveBackFailure); // freed when its lease ends
                        }
                    }
                    throw e;
                }
                if (!attempt.acquired()) {
                    return new LockAttempt.Blocked(keys.channel(), recheckAfter(attempt.holderTtlMillis(), unqueuedRecheckMillis));
                }
                holds.acquired(keys, owner, kind, attempt.holdCounts()[0], attempt.tokens()[0], leaseMillis, false);
                return null;
            });
        };
    }

    private static long recheckAfter(long holderTtlMillis, long boundMillis) {
        long bound = Math.max(1, boundMillis);
        return holderTtlMillis < 0 ? bound : Math.min(holderTtlMillis, bound);
    }
}
