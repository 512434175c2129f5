package io.github.redislock.core.hold;

import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.redislock.LockLostException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockRedisException;

import org.apache.commons.logging.Log;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * Releases holds in Redis, every kind with its own script, and settles each in {@link HeldLocks}; a
 * lock found gone is reported, never silently forgotten.
 */
public final class HoldReleases {

    private static final Log log = HeldLocks.LOCKER_LOG;
    private static final Duration CENTURIES = Duration.ofNanos(Long.MAX_VALUE / 2);

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

    public CompletableFuture<Void> releaseAsync(Hold hold, long keepMillis, Executor settleOn) {
        return releaseAsync(List.of(hold), keepMillis, settleOn);
    }

    /**
     * How long the release of {@code hold} keeps its lock in Redis, owned by nobody ({@code holdAtLeast}),
     * so a job shorter than the clock skew between two instances does not run twice. The time since the
     * grant is measured on this instance's monotonic clock and the rest sent as a relative {@code PEXPIRE}:
     * no wall clock is compared with another's (their skew is the very problem), and Redis keeps the lock
     * at least {@code holdAtLeast}, longer by at most two trips. 0 unless the final release of a plain hold
     * taken less than {@code holdAtLeast} ago; never longer than its lease.
     */
    public static long keepMillis(Hold hold, Duration holdAtLeast) {
        if (hold.count > 1 || hold.kind != LockKind.PLAIN || holdAtLeast.isZero()) {
            return 0;
        }
        long keepNanos = holdAtLeast.compareTo(CENTURIES) < 0 ? holdAtLeast.toNanos() : CENTURIES.toNanos(); // no overflow in the subtraction
        if (!hold.watched && hold.leaseMillis > 0) {
            keepNanos = Math.min(keepNanos, TimeUnit.MILLISECONDS.toNanos(hold.leaseMillis));
        }
        long leftNanos = keepNanos - (System.nanoTime() - hold.sinceNanos);
        return leftNanos <= 0 ? 0 : (leftNanos + 999_999) / 1_000_000; // rounded up: never shorter than asked
    }

    /** @throws IllegalArgumentException when it is null or negative, naming the key */
    public static Duration checkedHoldAtLeast(String key, Duration holdAtLeast) {
        if (holdAtLeast == null || holdAtLeast.isNegative()) {
            throw new IllegalArgumentException("holdAtLeast for lock '" + key + "' must be 0 or more (0 releases at once), but was " + holdAtLeast);
        }
        return holdAtLeast;
    }

    /**
     * Releases one hold of each, plain holds sharing a hash slot in one script call, and settles them on
     * {@code settleOn}; fails with the first failure, later ones suppressed. Never call it on an event
     * loop: unwatching a hold waits for a renewal being sent. {@code keepMillis}: see {@link #keepMillis}.
     */
    public CompletableFuture<Void> releaseAsync(List<Hold> held, long keepMillis, Executor settleOn) {
        Failures failures = new Failures();
        List<List<Hold>> groups = groups(held, failures);
        CompletableFuture<?>[] settled = new CompletableFuture<?>[groups.size()];
        for (int i = 0; i < settled.length; i++) {
            List<Hold> group = groups.get(i);
            settled[i] = releaseInRedis(group, keepMillis).handleAsync((remaining, failure) -> {
                if (failure == null) {
                    settle(group, remaining, keepMillis, failures);
                } else {
                    RuntimeException cause = CallerRuns.unchecked(failure);
                    for (int h = 0; cause instanceof LockRedisException && h < group.size(); h++) {
                        if (group.get(h).count <= 1) { // no longer renewed: Redis frees it when its lease ends
                            holds.forgetFinal(group.get(h));
                        }
                    }
                    failures.add(cause);
                }
                return settled.length == 1 ? failures.rethrow() : null; // the usual one group needs no stage after it
            }, settleOn);
        }
        if (settled.length == 1) {
            @SuppressWarnings("unchecked")
            CompletableFuture<Void> only = (CompletableFuture<Void>) settled[0];
            return only;
        }
        return CompletableFuture.allOf(settled).thenApply(done -> failures.rethrow());
    }

    /**
     * Releases the holds an acquisition took as its wait was told to stop (nobody else would). Unlike an
     * unlock it pays none of the unlocks owed to a lost hold one of them replaced: those stay owed.
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

    /** One script call each: every hold not found lost, plain ones grouped by hash slot. */
    private List<List<Hold>> groups(List<Hold> held, Failures failures) {
        if (held.size() == 1) { // the common unlock needs no grouping by slot
            return beforeRelease(held.get(0), failures) ? List.of(held) : List.of();
        }
        List<List<Hold>> groups = new ArrayList<>();
        List<Hold> plain = new ArrayList<>();
        for (Hold hold : held) {
            if (beforeRelease(hold, failures)) {
                if (hold.kind == LockKind.PLAIN) {
                    plain.add(hold);
                } else {
                    groups.add(List.of(hold));
                }
            }
        }
        groups.addAll(bySlot(plain, hold -> hold.keys.name()));
        return groups;
    }

    /** Groups locks by cluster hash slot, slots ascending, keeping their order within one: every owner takes them in the same order. */
    public static <T> List<List<T>> bySlot(List<T> locks, Function<T, String> redisName) {
        Map<Integer, List<T>> groups = new TreeMap<>();
        for (T lock : locks) {
            groups.computeIfAbsent(ClusterSlotHashUtil.calculateSlot(redisName.apply(lock)), slot -> new ArrayList<>()).add(lock);
        }
        return new ArrayList<>(groups.values());
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

    /** @param remaining per hold, what Redis counts left after the release, -1 when it was gone */
    private void settle(List<Hold> group, long[] remaining, long keepMillis, Failures failures) {
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
            hold.count = remaining[i] == 0 || finalRelease ? remaining[i] : hold.count - 1; // the client counts its holds (see HeldLocks#acquired)
            if (remaining[i] == 0) {
                holds.forgetFinal(hold);
                long heldNanos = System.nanoTime() - hold.sinceNanos;
                if (observer != LockObserver.NONE) { // no observation built for nobody (see RedisLocker#observe)
                    observer.released(HeldLocks.observed(hold), heldNanos);
                }
                if (log.isDebugEnabled()) {
                    log.debug("Released " + hold.kind.describe(hold.keys.name()) + " after holding it " + TimeUnit.NANOSECONDS.toMillis(heldNanos) + " ms");
                    if (keepMillis > 0) {
                        log.debug("Kept " + hold.kind.describe(hold.keys.name()) + " for another " + keepMillis + " ms, owned by nobody (holdAtLeast)");
                    }
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
                List<LockKeys> keys = new ArrayList<>(group.size());
                long[] leases = new long[group.size()];
                long[] tokens = new long[group.size()];
                for (int i = 0; i < group.size(); i++) {
                    Hold hold = group.get(i);
                    keys.add(hold.keys);
                    leases[i] = hold.count <= 1 ? 0 : hold.restoreLease(watchdog); // 0: the owner's last hold, freed whatever Redis counts
                    tokens[i] = hold.token;
                }
                yield commands.releaseAsync(keys, first.owner, leases, tokens, keepMillis > 0 ? new long[] {keepMillis} : null);
            }
            case FAIR, READ, WRITE -> commands.releaseAsync(first.kind, first.keys, first.owner, first.restoreLease(watchdog))
                    .thenApply(left -> new long[] {left});
        };
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

        synchronized Void rethrow() {
            if (first != null) {
                throw first;
            }
            return null;
        }
    }
}
