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

    /**
     * Releases one hold of each; plain holds sharing a hash slot in one script call. Every hold is
     * settled before the first failure (a lost hold, a Redis error) is thrown, with later ones suppressed.
     */
    public void release(List<Hold> held) {
        Failures failures = new Failures();
        List<Hold> plain = held.size() > 1 ? new ArrayList<>() : List.of(); // a single hold needs no grouping by slot
        for (Hold hold : held) {
            if (!beforeRelease(hold, failures)) {
                continue;
            }
            if (hold.kind == LockKind.PLAIN && held.size() > 1) {
                plain.add(hold);
            } else {
                releaseGroup(List.of(hold), failures);
            }
        }
        if (!plain.isEmpty()) {
            Map<Integer, List<Hold>> bySlot = new TreeMap<>();
            for (Hold hold : plain) {
                bySlot.computeIfAbsent(ClusterSlotHashUtil.calculateSlot(hold.keys.name()), slot -> new ArrayList<>()).add(hold);
            }
            bySlot.values().forEach(group -> releaseGroup(group, failures));
        }
        failures.throwFirst();
    }

    /**
     * Releases one plain hold like {@link #release}; a final release with {@code keepMillis > 0} keeps
     * the lock in Redis that much longer, owned by nobody (see {@link HoldAtLeast}).
     */
    public void release(Hold hold, long keepMillis) {
        Failures failures = new Failures();
        if (beforeRelease(hold, failures)) {
            releaseGroup(List.of(hold), keepMillis, failures);
        }
        failures.throwFirst();
        kept(hold, keepMillis);
    }

    /**
     * Releases one plain hold like {@link #release}, without a thread waiting for Redis. Call it from a
     * thread that may wait briefly (not an event loop): stopping the watchdog's renewal of the hold waits
     * for a renewal already in flight. The hold is settled on {@code settleOn} once Redis answered; a hop
     * there costs no Redis call, and keeps the settling (the watchdog again, the observer's code) off the
     * Lettuce event loop that delivers the reply.
     *
     * @param settleOn also where the release runs, blocking, when it cannot go without a thread
     * @return completes once the hold is settled; fails as {@link #release} throws
     */
    public CompletableFuture<Void> releaseAsync(Hold hold, Executor settleOn) {
        return releaseAsync(hold, 0, settleOn);
    }

    /** {@link #releaseAsync(Hold, Executor)} that keeps the lock like {@link #release(Hold, long)}. */
    public CompletableFuture<Void> releaseAsync(Hold hold, long keepMillis, Executor settleOn) {
        Failures failures = new Failures();
        if (!beforeRelease(hold, failures)) {
            return failures.asStage();
        }
        List<Hold> group = List.of(hold);
        return releasePlainAsync(group, keepMillis, settleOn).handleAsync((remaining, failure) -> {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (cause instanceof LockRedisException redisFailure) {
                failed(group, redisFailure, failures);
            } else if (cause != null) {
                return CompletableFuture.<Void>failedFuture(cause);
            } else {
                settle(group, remaining, failures);
            }
            return failures.asStage();
        }, settleOn).thenCompose(settled -> settled).thenRun(() -> kept(hold, keepMillis));
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
            holds.forgetFinal(hold);
            failures.add(holds.lostException(hold, "the watchdog found it gone before the unlock"));
            return false;
        }
        if (hold.count <= 1 && hold.watched) {
            watchdog.unwatch(hold); // before the release: no renewal may follow a completed unlock
        }
        return true;
    }

    /** @param group one hold, or plain holds of one hash slot */
    private void releaseGroup(List<Hold> group, Failures failures) {
        releaseGroup(group, 0, failures);
    }

    /** @param keepMillis for a single plain hold, how long its final release keeps the lock; else 0 */
    private void releaseGroup(List<Hold> group, long keepMillis, Failures failures) {
        long[] remaining;
        try {
            remaining = releaseInRedis(group, keepMillis);
        } catch (LockRedisException e) {
            failed(group, e, failures);
            return;
        }
        settle(group, remaining, failures);
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
                holds.forgetFinal(hold);
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

    private long[] releaseInRedis(List<Hold> group, long keepMillis) {
        Hold first = group.get(0);
        return switch (first.kind) {
            case PLAIN -> releasePlain(group, keepMillis);
            case FAIR -> new long[] {commands.releaseFair(first.keys, first.owner, restoreLease(first))};
            case READ, WRITE -> new long[] {commands.releaseReadWrite(first.keys, first.kind, first.owner)};
        };
    }

    /** Plain holds of one slot group in one script call, each with its token, from which a hand-off counts on. */
    private long[] releasePlain(List<Hold> group, long keepMillis) {
        PlainRelease call = new PlainRelease(group, keepMillis);
        return commands.release(call.keys, group.get(0).owner, call.leases, call.tokens, call.keeps);
    }

    private CompletableFuture<long[]> releasePlainAsync(List<Hold> group, long keepMillis, Executor blockingFallback) {
        PlainRelease call = new PlainRelease(group, keepMillis);
        return commands.releaseAsync(call.keys, group.get(0).owner, call.leases, call.tokens, call.keeps, blockingFallback);
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

        void add(RuntimeException failure) {
            if (first == null) {
                first = failure;
            } else {
                first.addSuppressed(failure);
            }
        }

        void throwFirst() {
            if (first != null) {
                throw first;
            }
        }

        CompletableFuture<Void> asStage() {
            return first == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(first);
        }
    }
}
