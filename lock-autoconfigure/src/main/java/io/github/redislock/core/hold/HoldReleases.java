package io.github.redislock.core.hold;


import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockRedisException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * Releases holds in Redis, every kind with its own script, and settles each in {@link HeldLocks}: a
 * count that went down, a final release, a lock found gone (reported, never silently forgotten), a
 * failure of Redis (the hold is no longer renewed, so Redis frees it when its lease ends).
 */
public final class HoldReleases {

    /** The Locker's own logger: its lines are documented under that name. */
    private static final Log log = LogFactory.getLog(RedisLocker.class);

    private final LockCommands commands;
    private final LockWatchdog watchdog;
    private final LockObserver observer;
    private final HeldLocks holds;

    public HoldReleases(LockCommands commands, LockWatchdog watchdog, LockObserver observer, HeldLocks holds) {
        this.commands = commands;
        this.watchdog = watchdog;
        this.observer = observer;
        this.holds = holds;
    }

    /** A wait on {@link #releaseAsync(List, long, Executor)}, settling on the calling thread (see {@link CallerRuns}). */
    public void release(List<Hold> held) {
        CallerRuns.await(onCaller -> releaseAsync(held, 0, onCaller));
    }

    /** {@link #releaseAsync(List, long, Executor)} of one hold that may keep the lock. */
    public CompletableFuture<Void> releaseAsync(Hold hold, long keepMillis, Executor settleOn) {
        return releaseAsync(List.of(hold), keepMillis, settleOn);
    }

    /**
     * Releases one hold of each, plain holds sharing a hash slot in one script call, without a thread
     * waiting for Redis. Call it from a thread that may wait briefly (not an event loop): stopping the
     * watchdog's renewal of a hold waits for a renewal already in flight. Each hold is settled on
     * {@code settleOn} once Redis answered, off the event loop that delivers the reply.
     *
     * @param keepMillis for a single plain hold, how long its final release keeps the lock in Redis, owned
     *                   by nobody (see {@link HoldAtLeast}); else 0
     * @return completes once every hold is settled; fails with the first failure (a lost hold, a Redis
     *         error), later ones suppressed
     */
    public CompletableFuture<Void> releaseAsync(List<Hold> held, long keepMillis, Executor settleOn) {
        Failures failures = new Failures();
        List<List<Hold>> groups = groups(held, failures);
        CompletableFuture<?>[] settled = new CompletableFuture<?>[groups.size()];
        for (int i = 0; i < settled.length; i++) {
            List<Hold> group = groups.get(i);
            settled[i] = releaseInRedis(group, keepMillis).handleAsync((remaining, failure) -> {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                if (cause instanceof LockRedisException redisFailure) {
                    failed(group, redisFailure, failures);
                } else if (cause instanceof RuntimeException other) {
                    failures.add(other);
                } else if (cause == null) {
                    settle(group, remaining, failures);
                }
                return null;
            }, settleOn);
        }
        return (settled.length == 1 ? settled[0] : CompletableFuture.allOf(settled)).thenCompose(done -> failures.asStage()).thenRun(() -> {
            if (held.size() == 1) {
                kept(held.get(0), keepMillis);
            }
        });
    }

    /**
     * Releases in Redis the holds an acquisition took as its wait was told to stop: its caller never got
     * them, so nobody would unlock them. Unlike an unlock it pays none of the unlocks owed to a lost hold
     * one of them replaced ({@link Hold#owedToLost}): those stay owed (see {@link HeldLocks#stillOwed}).
     */
    public CompletableFuture<Void> giveBack(List<Hold> taken, Executor settleOn) {
        long[] owed = new long[taken.size()];
        boolean anyOwed = false;
        for (int i = 0; i < owed.length; i++) {
            Hold hold = taken.get(i);
            synchronized (hold) {
                owed[i] = hold.owedToLost;
                hold.owedToLost = 0;
            }
            anyOwed |= owed[i] > 0;
        }
        CompletableFuture<Void> released = releaseAsync(taken, 0, settleOn);
        return !anyOwed ? released : released.whenComplete((done, failure) -> {
            for (int i = 0; i < owed.length; i++) {
                if (owed[i] > 0) {
                    holds.stillOwed(taken.get(i), owed[i]);
                }
            }
        });
    }

    /** The holds to release in one script call each: every hold not found lost, plain ones grouped by hash slot. */
    private List<List<Hold>> groups(List<Hold> held, Failures failures) {
        if (held.size() == 1) { // the common unlock needs no grouping by slot
            return beforeRelease(held.get(0), failures) ? List.of(held) : List.of();
        }
        List<List<Hold>> groups = new ArrayList<>();
        Map<Integer, List<Hold>> plainBySlot = new TreeMap<>();
        for (Hold hold : held) {
            if (!beforeRelease(hold, failures)) {
                continue;
            }
            if (hold.kind == LockKind.PLAIN) {
                plainBySlot.computeIfAbsent(ClusterSlotHashUtil.calculateSlot(hold.keys.name()), slot -> new ArrayList<>()).add(hold);
            } else {
                groups.add(List.of(hold));
            }
        }
        groups.addAll(plainBySlot.values());
        return groups;
    }

    private static void kept(Hold hold, long keepMillis) {
        if (keepMillis > 0 && hold.count == 0 && log.isDebugEnabled()) {
            log.debug("Kept " + hold.kind.describe(hold.keys.name()) + " for another " + keepMillis + " ms, owned by nobody (holdAtLeast)");
        }
    }

    /** @return false when the hold was found lost before the unlock (it is settled, and the loss added) */
    private boolean beforeRelease(Hold hold, Failures failures) {
        synchronized (hold) {
            if (hold.owedToLost > 0) {
                hold.owedToLost--;
                failures.add(holds.lostException(hold, "the watchdog found an earlier hold of this owner gone (the lock taken again since is"
                        + " kept for the owner's remaining unlock)"));
                return false;
            }
        }
        if (hold.lost) {
            holds.lostNestUnlocked(hold);
            failures.add(holds.lostException(hold, "the watchdog found it gone before the unlock"));
            return false;
        }
        if (hold.count <= 1 && hold.watched) {
            watchdog.unwatch(hold); // before the release: no renewal may follow a completed unlock
        }
        return true;
    }

    /** Redis could not be asked: the holds are no longer renewed, so Redis frees them when their leases run out. */
    private void failed(List<Hold> group, LockRedisException failure, Failures failures) {
        for (Hold hold : group) {
            if (hold.count <= 1) {
                holds.forgetFinal(hold);
            }
        }
        failures.add(failure);
    }

    /** @param remaining per hold, what Redis counts left after the release, -1 when it was gone */
    private void settle(List<Hold> group, long[] remaining, Failures failures) {
        for (int i = 0; i < group.size(); i++) {
            Hold hold = group.get(i);
            boolean finalRelease = hold.count <= 1;
            if (remaining[i] < 0) {
                holds.lostNestUnlocked(hold);
                observer.lost(HeldLocks.observed(hold), false);
                LockLostException lost = holds.lostException(hold, hold.leaseMillis > 0 ? "its lease of " + hold.leaseMillis + " ms expired" : "it expired or was deleted");
                log.warn(lost.getMessage());
                failures.add(lost);
                continue;
            }
            hold.count = remaining[i];
            if (remaining[i] == 0) {
                holds.forgetFinal(hold);
                long heldNanos = System.nanoTime() - hold.sinceNanos;
                observer.released(HeldLocks.observed(hold), heldNanos);
                if (log.isDebugEnabled()) {
                    log.debug("Released " + hold.kind.describe(hold.keys.name()) + " after holding it " + TimeUnit.NANOSECONDS.toMillis(heldNanos) + " ms");
                }
            } else if (finalRelease && hold.watched) {
                watchdog.watch(hold); // Redis counted more holds than we did; keep it alive
            }
        }
    }

    private CompletableFuture<long[]> releaseInRedis(List<Hold> group, long keepMillis) {
        Hold first = group.get(0);
        return switch (first.kind) {
            case PLAIN -> {
                PlainRelease call = new PlainRelease(group, keepMillis);
                yield commands.releaseAsync(call.keys, first.owner, call.leases, call.tokens, call.keeps);
            }
            case FAIR -> commands.releaseFairAsync(first.keys, first.owner, restoreLease(first)).thenApply(left -> new long[] {left});
            case READ, WRITE -> commands.releaseReadWriteAsync(first.keys, first.kind, first.owner).thenApply(left -> new long[] {left});
        };
    }

    /** What a release of plain holds sends per lock: its keys, the lease to restore when holds remain, its fencing token. */
    private final class PlainRelease {
        final List<LockKeys> keys;
        final long[] leases;
        final long[] tokens;
        /** Per lock, how long a final release keeps it; null when none is kept. */
        final long[] keeps;

        /** @param keepMillis for a single hold, how long its final release keeps the lock; else 0 */
        PlainRelease(List<Hold> group, long keepMillis) {
            keeps = keepMillis > 0 ? new long[] {keepMillis} : null;
            keys = new ArrayList<>(group.size());
            leases = new long[group.size()];
            tokens = new long[group.size()];
            for (int i = 0; i < group.size(); i++) {
                Hold hold = group.get(i);
                keys.add(hold.keys);
                leases[i] = hold.count <= 1 ? 0 : restoreLease(hold); // 0: the owner's last hold, freed whatever Redis counts
                tokens[i] = hold.token;
            }
        }
    }

    private long restoreLease(Hold hold) {
        return hold.watched ? watchdog.timeout().toMillis() : hold.leaseMillis;
    }

    /** The first failure of a release of several holds, with the later ones attached. */
    private static final class Failures {
        private RuntimeException first;

        synchronized void add(RuntimeException failure) {
            if (first == null) {
                first = failure;
            } else {
                first.addSuppressed(failure);
            }
        }

        synchronized CompletableFuture<Void> asStage() {
            return first == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(first);
        }
    }
}
