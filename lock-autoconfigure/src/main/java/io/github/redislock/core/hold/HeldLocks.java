package io.github.redislock.core.hold;

import io.github.redislock.core.renewal.DaemonThreads;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.core.script.ScriptTransport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redislock.FencingTokens;
import io.github.redislock.HeldLock;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.LockNameScope;
import io.github.redislock.LockObserver;
import io.github.redislock.LockRedisException;
import io.github.redislock.Locker;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The holds a locker knows of, by lock, owner and slot, and their release in Redis. A lock found gone is
 * reported, never silently forgotten: a lost hold stays until its owner unlocks, unless its owner thread ended.
 */
public final class HeldLocks {

    /** The lockers' logger: their lines are documented under RedisLocker's name (docs/observability.md). */
    public static final Log LOCKER_LOG = LogFactory.getLog("io.github.redislock.core.RedisLocker");

    private static final List<LockKind> SLOTS = List.of(LockKind.PLAIN, LockKind.READ, LockKind.WRITE);
    private static final Duration CENTURIES = Duration.ofNanos(Long.MAX_VALUE / 2);
    /** Lost-lock events that may wait for a listener; beyond that one is dropped with an ERROR (its unlock still throws). */
    static final int MAX_PENDING_LOST_EVENTS = 1000;

    private final Map<Hold.Id, Hold> holds = new ConcurrentHashMap<>();
    private final Locker locker;
    private final Supplier<String> currentOwner;
    final LockCommands commands;
    private final LockWatchdog watchdog;
    private final LockObserver observer;
    private final ApplicationEventPublisher events;
    /** Publishes {@link LockLostEvent}s in order on a thread of its own (ended after an idle minute): a listener that blocks must not hold up renewals. */
    final ThreadPoolExecutor lostEvents = new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES,
            new ArrayBlockingQueue<>(MAX_PENDING_LOST_EVENTS), DaemonThreads.named("redis-lock-lost-events"));

    /** @param currentOwner the calling thread's owner field in {@code locker}, the source of the lost-lock events */
    public HeldLocks(Locker locker, Supplier<String> currentOwner, LockCommands commands, LockWatchdog watchdog, LockObserver observer,
                     ApplicationEventPublisher events) {
        this.locker = locker;
        this.currentOwner = currentOwner;
        this.commands = commands;
        this.watchdog = watchdog;
        this.observer = observer;
        this.events = events;
        lostEvents.allowCoreThreadTimeOut(true);
    }

    public Hold get(String redisName, String owner, LockKind slot) {
        return holds.get(new Hold.Id(redisName, owner, slot));
    }

    public boolean any(java.util.function.Predicate<Hold> test) {
        return holds.values().stream().anyMatch(test);
    }

    public int count() {
        return holds.size();
    }

    public List<HeldLock> list() {
        return holds.values().stream()
                .map(hold -> new HeldLock(hold.keys.key(), hold.keys.name(), hold.kind.metricName(), hold.owner, hold.thread, hold.count,
                        java.time.Instant.now().minusNanos(System.nanoTime() - hold.sinceNanos), hold.leaseMillis, hold.watched, hold.lost))
                .toList();
    }

    /** The Locker closes: lost-lock events already found are still delivered. */
    public void closeAll() {
        holds.values().forEach(watchdog::unwatch);
        holds.clear();
        lostEvents.shutdown();
    }

    public static IllegalStateException closedException(String key) {
        return new IllegalStateException("Locker is closed (its application context has shut down); cannot use lock '" + key + "'");
    }

    public void acquired(LockKeys keys, String owner, LockKind kind, long holdCount, long token, long leaseMillis, boolean uncontended) {
        boolean threadOwned = owner.equals(currentOwner.get());
        Hold[] replaced = new Hold[1];
        boolean[] leasedReentry = new boolean[1];
        // One atomic step per hold: two registrations at once (a token owner on two threads) must not both put a hold, one then renewed by nobody.
        Hold hold = holds.compute(new Hold.Id(keys.name(), owner, kind.holdSlot()), (held, known) -> {
            if (holdCount == 1 || known == null) {
                replaced[0] = known; // a hold lost earlier and never unlocked
                Hold taken = new Hold(held, keys, kind, token, holdCount, leaseMillis, threadOwned, uncontended, this);
                if (known != null && known.lost) {
                    taken.owedToLost = known.count + known.owedToLost;
                }
                return taken;
            }
            known.count++; // the client's count, not Redis': a re-entry whose reply was lost counted one more there
            leasedReentry[0] = !known.watched && known.live();
            if (!known.watched && leaseMillis != Locker.WATCHDOG_LEASE) {
                known.leaseMillis = Math.max(known.leaseMillis, leaseMillis); // a re-entry never shortens the lock's life
            } else if (leasedReentry[0]) { // a multi-lock's watchdog lease lengthened it in Redis, once
                known.leaseMillis = Math.max(known.leaseMillis, watchdog.timeout().toMillis());
            }
            return known;
        });
        long leaseInRedis = leaseMillis != Locker.WATCHDOG_LEASE ? leaseMillis : leasedReentry[0] ? watchdog.timeout().toMillis() : Locker.WATCHDOG_LEASE;
        if (replaced[0] != null && replaced[0].watched) {
            watchdog.unwatch(replaced[0]);
        }
        if (leaseInRedis != Locker.WATCHDOG_LEASE) {
            long endsNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseInRedis);
            hold.leaseEndsNanos = holdCount == 1 || hold.leaseEndsNanos == Long.MAX_VALUE ? endsNanos : Math.max(hold.leaseEndsNanos, endsNanos);
        }
        if (leaseMillis == Locker.WATCHDOG_LEASE && !hold.watched && !leasedReentry[0]) { // see reentryLease
            hold.watched = true;
            watchdog.watch(hold);
        }
        if (threadOwned) { // a token owner's lock may end on another thread: no thread-local for it
            FencingTokens.record(keys.key(), owner, hold); // the owner names the hold among others on the key: one locker, one prefix
        }
        if (LOCKER_LOG.isDebugEnabled()) {
            LOCKER_LOG.debug("Acquired " + kind.describe(keys.name()) + " (hold " + holdCount + ", token " + hold.token + ", "
                    + (leaseMillis == Locker.WATCHDOG_LEASE ? "watchdog" : "lease " + leaseMillis + " ms") + ")");
        }
    }

    /** An unlock of a lost hold: it stays, lost, until its last nest, so every remaining unlock reports the loss. */
    private void lostNestUnlocked(Hold hold) {
        if (hold.count <= 1) {
            forgetFinal(hold);
            return;
        }
        hold.count--;
        hold.lost = true;
        if (hold.watched) {
            hold.watched = false;
            watchdog.unwatch(hold);
        }
    }

    /** Forgets a hold that ended; the thread's token goes once it holds nothing else on the key (only that thread refills this slot, later). */
    private void forgetFinal(Hold hold) {
        holds.remove(hold.id, hold);
        if (hold.watched) {
            watchdog.unwatch(hold);
        }
        for (LockKind slot : SLOTS) {
            if (slot != hold.id.slot() && holds.containsKey(new Hold.Id(hold.keys.name(), hold.owner, slot))) {
                return;
            }
        }
        FencingTokens.forget(hold.keys.key(), hold.owner);
    }

    void publishLost(Hold hold, String reason) {
        if (LockLostEvent.OWNER_THREAD_TERMINATED.equals(reason)) {
            holds.remove(hold.id, hold); // nobody is left to unlock it
        }
        observer.lost(observed(hold), true);
        LockLostEvent event = new LockLostEvent(locker, hold.keys.key(), hold.keys.name(), hold.owner, reason, hold.token);
        try {
            lostEvents.execute(() -> {
                try {
                    events.publishEvent(event);
                } catch (RuntimeException e) {
                    LOCKER_LOG.warn("A listener of the " + event + " failed", e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOCKER_LOG.error("Dropped the " + event + ": " + MAX_PENDING_LOST_EVENTS + " lost-lock events wait for a listener that does not return"
                    + (lostEvents.isShutdown() ? " (the Locker is closed)" : ""));
        }
    }

    public static LockObserver.ObservedLock observed(Hold hold) {
        return new LockObserver.ObservedLock(hold.keys.key(), hold.keys.name(), hold.kind.metricName(), hold.name);
    }

    /** A multi-lock is observed as one acquisition, named by its first key in taking order. */
    public static LockObserver.ObservedLock observed(LockKind kind, List<LockKeys> keys) {
        boolean multi = keys.size() > 1;
        return new LockObserver.ObservedLock(multi ? keys.stream().map(LockKeys::key).toList().toString() : keys.get(0).key(), keys.get(0).name(),
                multi ? "multi" : kind.metricName(), LockNameScope.current());
    }

    public LockLostException lostException(Hold hold, String why) {
        return new LockLostException(hold.keys.key(), "Lock '" + hold.keys.key() + "' (Redis key " + hold.keys.name()
                + ") was lost while owner " + hold.owner + " held it: " + why
                + ". Another owner may have held it meanwhile.");
    }

    /** Per lock, whether {@code owner} holds it here only lost or not at all: Redis then counts from 1, so no lost reply poses as a re-entry. */
    public boolean[] firstHolds(List<LockKeys> group, String owner) {
        boolean[] first = new boolean[group.size()];
        for (int i = 0; i < group.size(); i++) {
            Hold known = get(group.get(i).name(), owner, LockKind.PLAIN);
            first[i] = known == null || known.lost;
        }
        return first;
    }

    /**
     * The lease an acquisition asks for: its own, or, without one, the longest lease of the live leased holds
     * it only re-enters, so a nested {@code lock} never lifts the outer caller's bound. A multi-lock that also
     * takes a free key gets the watchdog's lease and leaves the re-entered leased holds unwatched ({@link #acquired}).
     */
    public long reentryLease(LockKind kind, List<LockKeys> keys, String owner, long leaseMillis) {
        if (leaseMillis != Locker.WATCHDOG_LEASE) {
            return leaseMillis;
        }
        long outerLease = Locker.WATCHDOG_LEASE;
        for (LockKeys lock : keys) {
            Hold known = get(lock.name(), owner, kind.holdSlot());
            if (known == null || known.watched || !known.live()) {
                return Locker.WATCHDOG_LEASE;
            }
            outerLease = Math.max(outerLease, known.leaseMillis);
        }
        return outerLease;
    }

    public boolean holdsLive(LockKeys keys, String owner, LockKind slot) {
        Hold known = get(keys.name(), owner, slot);
        return known != null && known.live();
    }

    /**
     * How long the final release of a plain hold keeps its lock in Redis, owned by nobody, for {@code holdAtLeast}
     * (so a job shorter than the clock skew between two instances does not run twice): the time since the grant
     * on this instance's monotonic clock, the rest sent as a relative {@code PEXPIRE}; no wall clock is compared.
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

    public static Duration checkedHoldAtLeast(String key, Duration holdAtLeast) {
        if (holdAtLeast == null || holdAtLeast.isNegative()) {
            throw new IllegalArgumentException("holdAtLeast for lock '" + key + "' must be 0 or more (0 releases at once), but was " + holdAtLeast);
        }
        return holdAtLeast;
    }

    /**
     * Releases one hold of each, plain holds sharing a hash slot in one script call, and settles them on
     * {@code settleOn}. Never call it on an event loop: unwatching a hold waits for a renewal being sent.
     */
    public CompletableFuture<Void> releaseAsync(List<Hold> held, long keepMillis, Executor settleOn) {
        Failures failures = new Failures();
        List<List<Hold>> groups = groups(held, failures);
        List<CompletableFuture<Void>> settled = new ArrayList<>(groups.size());
        for (List<Hold> group : groups) {
            settled.add(releaseInRedis(group, keepMillis).handleAsync((remaining, failure) -> {
                if (failure == null) {
                    settle(group, remaining, keepMillis, failures);
                } else {
                    RuntimeException cause = ScriptTransport.unchecked(failure);
                    for (int h = 0; cause instanceof LockRedisException && h < group.size(); h++) {
                        Hold hold = group.get(h);
                        if (hold.count-- <= 1) { // spent either way: its caller will not unlock again (a final hold, unrenewed, expires)
                            forgetFinal(hold);
                        }
                    }
                    failures.add(cause);
                }
                return groups.size() == 1 ? failures.rethrow() : null; // the usual one group needs no stage after it
            }, settleOn));
        }
        return settled.size() == 1 ? settled.get(0)
                : CompletableFuture.allOf(settled.toArray(CompletableFuture[]::new)).thenApply(done -> failures.rethrow());
    }

    /**
     * Releases the holds an acquisition took as its wait was told to stop (nobody else would). Unlike an
     * unlock it pays none of the unlocks owed to a lost hold one of them replaced: those stay owed.
     */
    public CompletableFuture<Void> giveBack(List<Hold> taken, Executor settleOn) {
        long[] owed = new long[taken.size()];
        for (int i = 0; i < owed.length; i++) {
            synchronized (taken.get(i)) {
                owed[i] = taken.get(i).owedToLost;
                taken.get(i).owedToLost = 0;
            }
        }
        return releaseAsync(taken, 0, settleOn).whenComplete((done, failure) -> {
            for (int i = 0; i < owed.length; i++) {
                if (owed[i] > 0) {
                    stillOwed(taken.get(i), owed[i]);
                }
            }
        });
    }

    private void stillOwed(Hold released, long owed) {
        boolean[] putBack = new boolean[1];
        Hold now = holds.computeIfAbsent(released.id, id -> {
            putBack[0] = true;
            released.watched = false;
            released.lost = true;
            released.count = owed;
            return released;
        });
        if (!putBack[0]) {
            synchronized (now) {
                now.owedToLost += owed;
            }
        }
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
                failures.add(lostException(hold, "the watchdog found an earlier hold of this owner gone (the lock taken again since is"
                        + " kept for the owner's remaining unlock)"));
                return false;
            }
        }
        if (hold.lost) {
            lostNestUnlocked(hold);
            failures.add(lostException(hold, "the watchdog found it gone before the unlock"));
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
                lostNestUnlocked(hold);
                observer.lost(observed(hold), false);
                LockLostException lost = lostException(hold, hold.leaseMillis > 0 ? "its lease of " + hold.leaseMillis + " ms expired" : "it expired or was deleted");
                LOCKER_LOG.warn(lost.getMessage());
                failures.add(lost);
                continue;
            }
            hold.count = remaining[i] == 0 || finalRelease ? remaining[i] : hold.count - 1; // the client counts its holds (see #acquired)
            if (remaining[i] == 0) {
                forgetFinal(hold);
                long heldNanos = System.nanoTime() - hold.sinceNanos;
                if (observer != LockObserver.NONE) { // no observation built for nobody (see RedisLocker#observe)
                    observer.released(observed(hold), heldNanos);
                }
                if (LOCKER_LOG.isDebugEnabled()) {
                    LOCKER_LOG.debug("Released " + hold.kind.describe(hold.keys.name()) + " after holding it " + TimeUnit.NANOSECONDS.toMillis(heldNanos) + " ms");
                    if (keepMillis > 0) {
                        LOCKER_LOG.debug("Kept " + hold.kind.describe(hold.keys.name()) + " for another " + keepMillis + " ms, owned by nobody (holdAtLeast)");
                    }
                }
            } else if (finalRelease && hold.watched) {
                watchdog.watch(hold); // Redis counted more holds than we did; keep it alive
            }
        }
    }

    private CompletableFuture<long[]> releaseInRedis(List<Hold> group, long keepMillis) {
        Hold first = group.get(0);
        List<LockKeys> keys = new ArrayList<>(group.size());
        long[] leases = new long[group.size()];
        long[] tokens = new long[group.size()];
        for (int i = 0; i < group.size(); i++) {
            Hold hold = group.get(i);
            keys.add(hold.keys);
            leases[i] = hold.count <= 1 ? 0 : hold.restoreLease(watchdog); // 0: the owner's last hold, freed whatever Redis counts (every kind's script)
            tokens[i] = hold.token;
        }
        if (first.kind != LockKind.PLAIN) { // a group of one
            return commands.releaseAsync(first.kind, first.keys, first.owner, leases[0]).thenApply(left -> new long[] {left});
        }
        return commands.releaseAsync(keys, first.owner, leases, tokens, keepMillis > 0 ? new long[] {keepMillis} : null, first.takenUncontended);
    }

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
