package io.github.redislock.core.hold;

import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redislock.FencingTokens;
import io.github.redislock.HeldLock;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.LockNameScope;
import io.github.redislock.LockObserver;
import io.github.redislock.Locker;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The holds a locker knows of, by lock, owner and slot. A lost hold stays until its owner unlocks (and
 * learns of the loss), unless its owner thread ended.
 */
public final class HeldLocks {

    /** The lockers' logger: their lines are documented under RedisLocker's name (docs/observability.md). */
    public static final Log LOCKER_LOG = LogFactory.getLog("io.github.redislock.core.RedisLocker");
    private static final Log log = LOCKER_LOG;

    private static final List<LockKind> SLOTS = List.of(LockKind.PLAIN, LockKind.READ, LockKind.WRITE);
    /** Lost-lock events that may wait for a listener; beyond that one is dropped with an ERROR (its unlock still throws). */
    static final int MAX_PENDING_LOST_EVENTS = 1000;

    private final Map<Hold.Id, Hold> holds = new ConcurrentHashMap<>();
    private final Locker locker;
    private final Supplier<String> currentOwner;
    private final LockWatchdog watchdog;
    private final LockObserver observer;
    private final ApplicationEventPublisher events;
    /**
     * Publishes {@link LockLostEvent}s in order on a thread of its own, ended after a minute without any:
     * a listener that blocks must not hold up the watchdog's renewal of every other lock.
     */
    private final ThreadPoolExecutor lostEvents = new ThreadPoolExecutor(1, 1, 1, TimeUnit.MINUTES,
            new ArrayBlockingQueue<>(MAX_PENDING_LOST_EVENTS), task -> {
                Thread thread = new Thread(task, "redis-lock-lost-events");
                thread.setDaemon(true);
                return thread;
            });

    /** @param currentOwner the calling thread's owner field in {@code locker}, the source of the lost-lock events */
    public HeldLocks(Locker locker, Supplier<String> currentOwner, LockWatchdog watchdog, LockObserver observer, ApplicationEventPublisher events) {
        this.locker = locker;
        this.currentOwner = currentOwner;
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
                        hold.since, hold.leaseMillis, hold.watched, hold.lost))
                .toList();
    }

    /** The Locker closes: lost-lock events already found are still delivered. */
    public void closeAll() {
        holds.values().forEach(watchdog::unwatch);
        holds.clear();
        lostEvents.shutdown();
    }

    public void acquired(LockKeys keys, String owner, LockKind kind, long holdCount, long token, long leaseMillis) {
        Hold.Id id = new Hold.Id(keys.name(), owner, kind.holdSlot());
        boolean threadOwned = owner.equals(currentOwner.get());
        Hold[] replaced = new Hold[1];
        boolean[] leasedReentry = new boolean[1];
        // One atomic step per hold: two registrations at once (a token owner on two threads) must not both put a hold, one then renewed by nobody.
        Hold hold = holds.compute(id, (held, known) -> {
            if (holdCount == 1 || known == null) {
                replaced[0] = known; // a hold lost earlier and never unlocked
                Hold taken = new Hold(keys, owner, kind, token, holdCount, leaseMillis, threadOwned, this::publishLost);
                if (known != null && known.lost) {
                    taken.owedToLost = known.count + known.owedToLost;
                }
                return taken;
            }
            known.count++; // the client's count, not Redis': a re-entry whose reply was lost counted one more there
            leasedReentry[0] = isLiveLeased(known);
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
            FencingTokens.record(keys.key(), hold.tokenHolder, hold.token);
        }
        if (log.isDebugEnabled()) {
            log.debug("Acquired " + kind.describe(keys.name()) + " (hold " + holdCount + ", token " + hold.token + ", "
                    + (leaseMillis == Locker.WATCHDOG_LEASE ? "watchdog" : "lease " + leaseMillis + " ms") + ")");
        }
    }

    /** Keeps the unlocks owed to a lost hold after a give-back released the hold that replaced it (see {@link Hold#owedToLost}). */
    void stillOwed(Hold released, long owed) {
        boolean[] putBack = new boolean[1];
        Hold now = holds.computeIfAbsent(released.id(), id -> {
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

    /** An unlock of a lost hold: it stays, lost, until its last nest, so every remaining unlock reports the loss. */
    void lostNestUnlocked(Hold hold) {
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

    /** Forgets a hold that ended; the thread's fencing token goes once it holds nothing else on the key. */
    void forgetFinal(Hold hold) {
        holds.remove(hold.id(), hold);
        if (hold.watched) {
            watchdog.unwatch(hold);
        }
        boolean holdsMore = false;
        for (LockKind slot : SLOTS) {
            holdsMore |= holds.containsKey(new Hold.Id(hold.keys.name(), hold.owner, slot));
        }
        if (!holdsMore) {
            FencingTokens.forget(hold.keys.key(), hold.tokenHolder);
        }
    }

    private void publishLost(Hold hold, String reason) {
        if (LockLostEvent.OWNER_THREAD_TERMINATED.equals(reason)) {
            holds.remove(hold.id(), hold); // nobody is left to unlock it
        }
        observer.lost(observed(hold), true);
        LockLostEvent event = new LockLostEvent(locker, hold.keys.key(), hold.keys.name(), hold.owner, reason, hold.token);
        try {
            lostEvents.execute(() -> {
                try {
                    events.publishEvent(event);
                } catch (RuntimeException e) {
                    log.warn("A listener of the " + event + " failed", e);
                }
            });
        } catch (RejectedExecutionException e) {
            log.error("Dropped the " + event + ": " + MAX_PENDING_LOST_EVENTS + " lost-lock events wait for a listener that does not return"
                    + (lostEvents.isShutdown() ? " (the Locker is closed)" : ""));
        }
    }

    public static LockObserver.ObservedLock observed(Hold hold) {
        return new LockObserver.ObservedLock(hold.keys.key(), hold.keys.name(), hold.kind.metricName(), hold.name);
    }

    /** A multi-lock is observed as one acquisition, named by its first key in taking order. */
    public static LockObserver.ObservedLock observed(LockKind kind, List<LockKeys> keys) {
        if (keys.size() == 1) {
            return new LockObserver.ObservedLock(keys.get(0).key(), keys.get(0).name(), kind.metricName(), LockNameScope.current());
        }
        return new LockObserver.ObservedLock(keys.stream().map(LockKeys::key).toList().toString(), keys.get(0).name(), "multi",
                LockNameScope.current());
    }

    public LockLostException lostException(Hold hold, String why) {
        return new LockLostException(hold.keys.key(), "Lock '" + hold.keys.key() + "' (Redis key " + hold.keys.name()
                + ") was lost before owner " + hold.owner + " unlocked it: " + why
                + ". Another owner may have held it meanwhile.");
    }

    /**
     * Per lock, whether this instance knows of no hold of {@code owner} but a lost one: Redis then restarts
     * the count at 1, so a hold left by a lost reply cannot pose as a re-entry.
     */
    public boolean[] firstHolds(List<LockKeys> group, String owner) {
        boolean[] first = new boolean[group.size()];
        for (int i = 0; i < group.size(); i++) {
            Hold known = get(group.get(i).name(), owner, LockKind.PLAIN);
            first[i] = known == null || known.lost;
        }
        return first;
    }

    /**
     * The lease an acquisition asks for: its own, except that one without a lease that only re-enters
     * holds taken with a lease takes the longest of their leases. A re-entry never changes how a hold
     * lives: a nested {@code lock} must not lift the outer caller's bound by handing the hold to the
     * watchdog for ever. A multi-lock that also takes a free key keeps the watchdog's lease for it, and
     * {@link #acquired} leaves the re-entered leased holds unwatched (they end one watchdog timeout later
     * at most); a leased re-entry into a watchdog hold stays under the watchdog.
     */
    public long reentryLease(LockKind kind, List<LockKeys> keys, String owner, long leaseMillis) {
        if (leaseMillis != Locker.WATCHDOG_LEASE) {
            return leaseMillis;
        }
        long outerLease = Locker.WATCHDOG_LEASE;
        for (LockKeys lock : keys) {
            Hold known = get(lock.name(), owner, kind.holdSlot());
            if (!isLiveLeased(known)) {
                return Locker.WATCHDOG_LEASE;
            }
            outerLease = Math.max(outerLease, known.leaseMillis);
        }
        return outerLease;
    }

    /** A hold taken with a lease that Redis may still have (an ended one is taken again as asked). */
    private static boolean isLiveLeased(Hold known) {
        return known != null && !known.lost && !known.watched && !known.leaseSurelyEnded();
    }

    /**
     * Whether Redis may still have {@code owner}'s hold in {@code slot}: nothing reports the end of a
     * leased hold, so once its lease has surely run out it no longer counts (a read hold must not keep its
     * owner from the write lock); its unlock still reports it lost.
     */
    public boolean holdsLive(LockKeys keys, String owner, LockKind slot) {
        Hold known = get(keys.name(), owner, slot);
        return known != null && !known.lost && (known.watched || !known.leaseSurelyEnded());
    }
}
