package io.github.redislock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.redislock.waiting.ReleaseSubscriptions;
import io.github.redislock.watchdog.LockWatchdog;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The {@link Locker} of one application instance. Its client id, a random UUID, tells its owners
 * apart from those of every other instance: an owner is {@code <clientId>:<threadId>}.
 */
public class RedisLocker extends AbstractLocker {

    /** How metrics and diagnostics name each kind of hold. */
    static String kindName(LockKind kind) {
        return switch (kind) {
            case PLAIN -> "reentrant";
            case FAIR -> "fair";
            case READ -> "read";
            case WRITE -> "write";
        };
    }

    private static final Log log = LogFactory.getLog(RedisLocker.class);

    private final LockCommands commands;
    private final LockWatchdog watchdog;
    private final ReleaseSubscriptions subscriptions;
    private final LostLockEvents lostEvents;
    private final LockObserver observer;
    private final Map<Hold.Id, Hold> holds = new ConcurrentHashMap<>();
    /** How soon a waiter whose try failed on Redis tries again. */
    private static final long RETRY_AFTER_FAILURE_MILLIS = 100;

    /** Waits that may have a place in a wait queue now; a closing Locker withdraws them so no release hands a lock to them. */
    private final Set<Attempt> queuedWaits = ConcurrentHashMap.newKeySet();

    /** Numbers each queuing wait, so a hand-off meant for an owner's earlier wait is never taken for its current one. */
    private final AtomicLong waitIds = new AtomicLong();
    /** Where releases announce hand-offs to this instance's waiters, as queue members carry it. */
    private final String inboxField;

    /**
     * @param keyPrefix prepended to every key to form its Redis key
     * @param events    receives {@link LockLostEvent}s
     */
    public RedisLocker(LockCommands commands, LockWatchdog watchdog, ReleaseSubscriptions subscriptions,
                       String keyPrefix, ApplicationEventPublisher events) {
        this(commands, watchdog, subscriptions, keyPrefix, events, LockObserver.NONE);
    }

    /** @param observer hears acquisitions, releases and losses (metrics, traces) */
    public RedisLocker(LockCommands commands, LockWatchdog watchdog, ReleaseSubscriptions subscriptions,
                       String keyPrefix, ApplicationEventPublisher events, LockObserver observer) {
        super(keyPrefix);
        this.commands = Objects.requireNonNull(commands, "commands");
        this.watchdog = Objects.requireNonNull(watchdog, "watchdog");
        this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
        this.lostEvents = new LostLockEvents(Objects.requireNonNull(events, "events"));
        this.observer = Objects.requireNonNull(observer, "observer");
        this.inboxField = LockCommands.inboxField(subscriptions.inbox());
    }

    @Override
    public void lockInterruptibly(String key) throws InterruptedException {
        lockInterruptibly(LockKind.PLAIN, Collections.singletonList(key));
    }

    @Override
    public boolean tryLock(String key) {
        return tryLock(LockKind.PLAIN, Collections.singletonList(key));
    }

    @Override
    public boolean tryLock(String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLock(LockKind.PLAIN, Collections.singletonList(key), waitTime, leaseTime, unit);
    }

    @Override
    public boolean tryLockAs(String ownerToken, String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        String owner = tokenOwner(ownerToken);
        List<LockKeys> lockKeys = keys(List.of(key));
        return acquire(LockKind.PLAIN, lockKeys, owner, LockTimes.waitNanos(key, waitTime, unit), LockTimes.leaseMillis(key, leaseTime, unit), true);
    }

    @Override
    public void unlockAs(String ownerToken, String key) {
        unlock(LockKind.PLAIN, key, tokenOwner(ownerToken));
    }

    @Override
    public void unlock(String key) {
        unlock(LockKind.PLAIN, key);
    }

    @Override
    public boolean isLocked(String key) {
        return commands.exists(keys(key));
    }

    @Override
    public int getHoldCount(String key) {
        return holdCount(LockKind.PLAIN, key);
    }

    @Override
    public long fencingToken(String key) {
        return fencingToken(LockKind.PLAIN, key);
    }

    @Override
    public RedisLock getLock(String key) {
        return new LockView(this, LockKind.PLAIN, key);
    }

    @Override
    public RedisLock getFairLock(String key) {
        return new LockView(this, LockKind.FAIR, key);
    }

    @Override
    public RedisReadWriteLock getReadWriteLock(String key) {
        RedisLock read = new LockView(this, LockKind.READ, key);
        RedisLock write = new LockView(this, LockKind.WRITE, key);
        return new RedisReadWriteLock() {
            @Override
            public RedisLock readLock() {
                return read;
            }

            @Override
            public RedisLock writeLock() {
                return write;
            }

            @Override
            public String toString() {
                return "RedisReadWriteLock[" + key + "]";
            }
        };
    }

    @Override
    public RedisMultiLock getMultiLock(String... keys) {
        if (keys == null || keys.length == 0) {
            throw new IllegalArgumentException("A multi-lock needs at least one key, but got " + (keys == null ? "null" : "none"));
        }
        Arrays.stream(keys).forEach(LockKeys::validate);
        return new MultiLockView(this, inTakingOrder(new ArrayList<>(new LinkedHashSet<>(Arrays.asList(keys)))));
    }

    /** Locks this instance holds now, for diagnostics. */
    public int heldLockCount() {
        return holds.size();
    }

    /** What this instance holds now, for diagnostics such as the {@code locks} Actuator endpoint. */
    public List<HeldLock> heldLocks() {
        return holds.values().stream()
                .map(hold -> new HeldLock(hold.keys.key(), hold.keys.name(), kindName(hold.kind), hold.owner, hold.thread, hold.count,
                        hold.since, hold.leaseMillis, hold.watched, hold.lost))
                .toList();
    }

    /**
     * Withdraws this instance's queued waits first, so no release hands a lock to a waiter that is
     * going away (it would stay taken for the hand-off's claim lease), then stops renewing; locks still
     * held expire in Redis within the watchdog timeout. Threads still waiting fail with
     * {@link IllegalStateException} at their next try.
     */
    @Override
    public void close() {
        closed = true;
        for (Attempt wait : queuedWaits) {
            abandon(wait, "a queued wait of a closing Locker");
        }
        holds.values().forEach(watchdog::unwatch);
        holds.clear();
        lostEvents.close();
    }

    // The lock views call the kind-aware methods below; FAIR, READ and WRITE take exactly one key.

    void lockUninterruptibly(LockKind kind, List<String> keys, long leaseMillis) {
        try {
            acquire(kind, keys(keys), currentOwner(), WAIT_FOREVER, leaseMillis, false);
        } catch (InterruptedException e) {
            throw new AssertionError("An uninterruptible wait cannot be interrupted", e);
        }
    }

    void lockInterruptibly(LockKind kind, List<String> keys) throws InterruptedException {
        acquire(kind, keys(keys), currentOwner(), WAIT_FOREVER, WATCHDOG_LEASE, true);
    }

    boolean tryLock(LockKind kind, List<String> keys) {
        try {
            return acquire(kind, keys(keys), currentOwner(), 0, WATCHDOG_LEASE, false);
        } catch (InterruptedException e) {
            throw new AssertionError("A lock attempt without waiting cannot be interrupted", e);
        }
    }

    boolean tryLock(LockKind kind, List<String> keys, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        String name = describe(keys);
        List<LockKeys> lockKeys = keys(keys);
        return acquire(kind, lockKeys, currentOwner(), LockTimes.waitNanos(name, waitTime, unit), LockTimes.leaseMillis(name, leaseTime, unit), true);
    }

    void unlock(LockKind kind, String key) {
        unlock(kind, key, currentOwner());
    }

    private void unlock(LockKind kind, String key, String owner) {
        String redisName = redisName(key);
        Hold hold = holds.get(new Hold.Id(redisName, owner, kind.holdSlot()));
        if (hold == null) {
            throw new IllegalMonitorStateException("Cannot unlock " + describe(kind, key) + " (Redis key " + redisName
                    + "): it is not held by owner " + owner + " (calling thread " + Thread.currentThread().getName() + ")");
        }
        release(List.of(hold));
    }

    /** Releases every key of a multi-lock, one script call per hash slot; a failure on one key does not keep the others. */
    void unlockAll(List<String> keys) {
        String owner = currentOwner();
        List<Hold> held = new ArrayList<>();
        for (String key : keys) {
            Hold hold = holds.get(new Hold.Id(keys(key).name(), owner, LockKind.PLAIN));
            if (hold == null) {
                throw new IllegalMonitorStateException("Cannot unlock multi-lock " + keys + ": its key '" + key
                        + "' is not held by owner " + owner + " (thread " + Thread.currentThread().getName() + "); nothing was released");
            }
            held.add(hold);
        }
        release(held);
    }

    /**
     * Releases one hold of each; plain holds sharing a hash slot in one script call. Every hold is
     * settled before the first failure (a lost hold, a Redis error) is thrown, with later ones suppressed.
     */
    private void release(List<Hold> held) {
        Failures failures = new Failures();
        List<Hold> plain = held.size() > 1 ? new ArrayList<>() : List.of(); // a single hold needs no grouping by slot
        for (Hold hold : held) {
            if (hold.lost) {
                forgetFinal(hold);
                failures.add(lostException(hold, "the watchdog found it gone before the unlock"));
                continue;
            }
            if (hold.count <= 1 && hold.watched) {
                watchdog.unwatch(hold); // before the release: no renewal may follow a completed unlock
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

    /** @param group one hold, or plain holds of one hash slot */
    private void releaseGroup(List<Hold> group, Failures failures) {
        long[] remaining;
        try {
            remaining = releaseInRedis(group);
        } catch (LockRedisException e) {
            for (Hold hold : group) {
                if (hold.count <= 1) {
                    forgetFinal(hold); // no longer renewed: Redis frees it when its lease runs out
                }
            }
            failures.add(e);
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            Hold hold = group.get(i);
            boolean finalRelease = hold.count <= 1;
            if (remaining[i] < 0) {
                forgetFinal(hold);
                observer.lost(observed(hold), false);
                LockLostException lost = lostException(hold, hold.leaseMillis > 0 ? "its lease of " + hold.leaseMillis + " ms expired" : "it expired or was deleted");
                log.warn(lost.getMessage());
                failures.add(lost);
                continue;
            }
            hold.count = remaining[i];
            if (remaining[i] == 0) {
                forgetFinal(hold);
                long heldNanos = System.nanoTime() - hold.sinceNanos;
                observer.released(observed(hold), heldNanos);
                if (log.isDebugEnabled()) {
                    log.debug("Released " + describe(hold.kind, hold.keys.name()) + " after holding it " + TimeUnit.NANOSECONDS.toMillis(heldNanos) + " ms");
                }
            } else if (finalRelease && hold.watched) {
                watchdog.watch(hold); // Redis counted more holds than we did; keep it alive
            }
        }
    }

    private long[] releaseInRedis(List<Hold> group) {
        Hold first = group.get(0);
        return switch (first.kind) {
            case PLAIN -> releasePlain(group);
            case FAIR -> new long[] {commands.releaseFair(first.keys, first.owner, restoreLease(first))};
            case READ, WRITE -> new long[] {commands.releaseReadWrite(first.keys, first.kind, first.owner)};
        };
    }

    private long[] releasePlain(List<Hold> group) {
        List<LockKeys> keys = new ArrayList<>(group.size());
        long[] leases = new long[group.size()];
        long[] tokens = new long[group.size()];
        for (int i = 0; i < group.size(); i++) {
            Hold hold = group.get(i);
            keys.add(hold.keys);
            leases[i] = restoreLease(hold);
            tokens[i] = hold.token;
        }
        return commands.release(keys, group.get(0).owner, leases, tokens);
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
    }

    int holdCount(LockKind kind, String key) {
        String owner = currentOwner();
        return commands.holdCount(keys(key), switch (kind) {
            case PLAIN, FAIR -> owner;
            case READ -> owner + ":r";
            case WRITE -> owner + ":w";
        });
    }

    long fencingToken(LockKind kind, String key) {
        LockKeys keys = keys(key);
        String owner = currentOwner();
        Hold hold = holds.get(new Hold.Id(keys.name(), owner, kind.holdSlot()));
        if (hold == null) {
            throw new IllegalMonitorStateException("No fencing token for " + describe(kind, key) + ": it is not held by owner "
                    + owner + " (thread " + Thread.currentThread().getName() + ")");
        }
        if (hold.lost) {
            throw lostException(hold, "the watchdog found it gone");
        }
        return hold.token;
    }

    @Override
    void lockUninterruptibly(String key, long leaseMillis) {
        lockUninterruptibly(LockKind.PLAIN, Collections.singletonList(key), leaseMillis);
    }

    /** {@link #tryAcquire}, told to the observer and logged with its wait. */
    private boolean acquire(LockKind kind, List<LockKeys> keys, String owner, long waitNanos, long leaseMillis, boolean interruptible)
            throws InterruptedException {
        LockObserver.Acquisition acquisition = observer.acquisitionStarted(observed(kind, keys));
        long start = System.nanoTime();
        boolean acquired;
        try {
            acquired = tryAcquire(kind, keys, owner, waitNanos, leaseMillis, interruptible);
        } catch (InterruptedException | RuntimeException | Error e) {
            acquisition.failed(e);
            throw e;
        }
        if (acquired) {
            acquisition.acquired();
        } else {
            acquisition.timedOut();
        }
        if (log.isDebugEnabled()) {
            log.debug((acquired ? "Acquired " : "Gave up on ") + describe(kind, describe(keys.stream().map(LockKeys::name).toList()))
                    + " after waiting " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
        }
        return acquired;
    }

    /**
     * Tries once, and while the lock is held elsewhere waits for a release message or for the holder's
     * lease to run out, whichever comes first, then tries again.
     *
     * @param waitNanos 0 tries once, {@link #WAIT_FOREVER} has no deadline
     */
    private boolean tryAcquire(LockKind kind, List<LockKeys> keys, String owner, long waitNanos, long leaseMillis, boolean interruptible)
            throws InterruptedException {
        long redisLease = leaseMillis == WATCHDOG_LEASE ? watchdog.timeout().toMillis() : leaseMillis;
        Attempt attempt = switch (kind) {
            case PLAIN -> plainAttempt(keys, owner, leaseMillis, redisLease);
            case FAIR -> fairAttempt(keys.get(0), owner, leaseMillis, redisLease);
            case READ, WRITE -> readWriteAttempt(kind, keys.get(0), owner, leaseMillis, redisLease);
        };
        Supplier<String> what = () -> describe(kind, describe(keys.stream().map(LockKeys::key).toList())); // for messages only
        if (interruptible && Thread.interrupted()) { // as java.util.concurrent's locks: an interrupt comes first, even when the lock is free
            throw new InterruptedException("Interrupted before trying to take " + what.get());
        }
        long firstTry = System.nanoTime();
        boolean acquired = false;
        ReleaseSubscriptions.Waiting waiting = null;
        String channel = null;
        long start = System.nanoTime();
        try {
            // Inside the try: a first try whose reply failed may still have queued, and that place is withdrawn below.
            Blocked blocked = attempt.tryOnce(waitNanos != 0);
            if (blocked == null) {
                acquired = true;
                return true;
            }
            if (waitNanos == 0) {
                return false;
            }
            if (interruptible && Thread.interrupted()) {
                throw new InterruptedException("Interrupted before waiting for " + what.get());
            }
            LockRedisException failing = null;
            long failingSince = 0;
            long expiredGrant = -1;
            while (true) {
                long remaining = waitNanos == WAIT_FOREVER ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
                if (!blocked.channel().equals(channel)) {
                    if (waiting != null) {
                        waiting.passOnWakeUp(); // it no longer waits for the lock it may have been woken for
                    }
                    if (channel != null && remaining <= 0) {
                        return false; // a multi-lock found another key in the way as its wait ran out
                    }
                    if (waiting != null) {
                        waiting.close();
                        waiting = null;
                    }
                    waiting = join(blocked.channel(), attempt.waitName(), what.get());
                    channel = blocked.channel();
                    if (attempt.waitName() != null && waiting.hearsEverythingSince(firstTry)) {
                        continue; // queued while the channel was heard: a hand-off cannot have been missed
                    }
                    // else try again: a release before the subscription is not missed
                } else {
                    if (remaining <= 0) {
                        if (failing != null) {
                            throw failing;
                        }
                        return false;
                    }
                    // The holder's lease bounds the wait: an expiry publishes nothing. A key without expiry was not set by us; look again after a watchdog period.
                    long holderTtl = blocked.holderTtlMillis() >= 0 ? Math.max(1, blocked.holderTtlMillis()) : watchdog.timeout().toMillis();
                    long park = Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(holderTtl));
                    if (interruptible) {
                        awaitNamingTheLock(waiting, park, what.get());
                    } else {
                        waiting.awaitUninterruptibly(park);
                    }
                    long handedOverToken = waiting.grantedToken();
                    if (handedOverToken >= 0 && handedOverToken != expiredGrant) {
                        if (attempt.handedOver(handedOverToken)) {
                            acquired = true;
                            return true;
                        }
                        expiredGrant = handedOverToken; // its claim lease ran out; a later hand-off brings a new token
                    }
                }
                if (closed) {
                    throw new IllegalStateException("Locker is closed (its application context has shut down) while waiting for " + what.get());
                }
                Blocked previous = blocked;
                try {
                    blocked = attempt.tryOnce(true);
                } catch (LockRedisException e) {
                    // A waiter rides out a short outage (its queue place outlasts it); a long one, or a shutdown, ends the wait.
                    long now = System.nanoTime();
                    failingSince = failing == null ? now : failingSince;
                    failing = e;
                    if (closed || now - failingSince >= watchdog.timeout().toNanos()) {
                        throw e;
                    }
                    blocked = new Blocked(previous.channel(), RETRY_AFTER_FAILURE_MILLIS);
                    continue;
                }
                failing = null;
                if (blocked == null) {
                    acquired = true;
                    return true;
                }
            }
        } finally {
            if (waiting != null) {
                waiting.close();
            }
            if (!acquired) {
                abandon(attempt, what.get());
            }
        }
    }

    /** One lock request as the wait loop sees it; tried again after every release message or lease end. */
    private interface Attempt {

        /**
         * @param queue whether the caller will wait (a fair lock then keeps its place in the queue)
         * @return null when the locks are now held (and their holds registered), else what blocks them
         */
        Blocked tryOnce(boolean queue);

        /** What a release that hands the lock to this wait names it by; null when it does not queue. */
        default String waitName() {
            return null;
        }

        /**
         * A release handed the lock to this (queued) owner: Redis holds it for the owner already, with this fencing token.
         *
         * @return false when the hand-off's claim lease ran out before it could be extended: the wait goes on
         */
        default boolean handedOver(long token) {
            throw new IllegalStateException("Only a queued single lock is handed over, yet a hand-off with token " + token + " arrived");
        }

        /** The caller stops waiting without the lock. */
        default void abandon() {
        }
    }

    /** @param channel where the release that may unblock the attempt is announced */
    private record Blocked(String channel, long holderTtlMillis) {
    }

    private static void awaitNamingTheLock(ReleaseSubscriptions.Waiting waiting, long nanos, String what) throws InterruptedException {
        try {
            waiting.await(nanos);
        } catch (InterruptedException e) {
            InterruptedException named = new InterruptedException("Interrupted while waiting for " + what);
            named.initCause(e);
            throw named;
        }
    }

    private ReleaseSubscriptions.Waiting join(String channel, String waitName, String what) {
        try {
            return subscriptions.join(channel, waitName);
        } catch (RuntimeException e) {
            throw new LockRedisException("Cannot subscribe to the release channel of " + what + ": " + LockCommands.rootMessage(e), e);
        }
    }

    private static void abandon(Attempt attempt, String what) {
        try {
            attempt.abandon();
        } catch (RuntimeException e) {
            log.warn("Could not withdraw the wait for " + what + "; its place expires by itself", e);
        }
    }

    /**
     * Plain locks: a single lock queues while it waits, so that a release hands it over; a multi-lock
     * takes each hash-slot group in one script call, groups in a fixed order, all or nothing.
     */
    private Attempt plainAttempt(List<LockKeys> keys, String owner, long leaseMillis, long redisLease) {
        return keys.size() == 1 ? queuingAttempt(keys.get(0), owner, leaseMillis, redisLease) : multiLockAttempt(keys, owner, leaseMillis, redisLease);
    }

    /**
     * A single lock. Once blocked it keeps a place in the lock's wait queue and a release gives it the
     * lock directly. The place lasts a third of the watchdog timeout and is refreshed on every try, so a
     * waiter that died (or gave up while Redis was unreachable) is skipped soon. Until then a release
     * may hand it the lock, but only with a claim lease of at most the watchdog timeout, which the
     * waiter extends to its own lease on the hand-off message: a lock handed to a waiter that died is
     * free again within the watchdog timeout, whatever lease that waiter asked for.
     */
    private Attempt queuingAttempt(LockKeys keys, String owner, long leaseMillis, long redisLease) {
        long keepPlace = Math.max(3, watchdog.timeout().toMillis() / 3);
        long claimLease = Math.min(redisLease, watchdog.timeout().toMillis());
        List<LockKeys> group = List.of(keys);
        String waitName = waitIds.incrementAndGet() + ":" + owner;
        String member = LockCommands.queueMember(inboxField, waitName, claimLease);
        return new QueuedWait() {

            @Override
            public Blocked tryOnce(boolean queue) {
                boolean[] firstHolds = firstHolds(group, owner);
                boolean queuedBefore = queued();
                if (queue && firstHolds[0]) {
                    markQueued(); // before the call: one whose reply is lost may have queued all the same
                }
                LockCommands.Acquisition attempt = commands.acquire(group, owner, redisLease, firstHolds, queue ? keepPlace : 0,
                        member, queuedBefore);
                if (attempt.acquired()) {
                    unmarkQueued();
                    acquired(keys, owner, LockKind.PLAIN, attempt.holdCounts()[0], attempt.tokens()[0], leaseMillis);
                    return null;
                }
                if (queue) {
                    markQueued();
                }
                long ttl = attempt.holderTtlMillis();
                // Come back before the place in the queue lapses, as the watchdog does for a lease.
                long refresh = Math.max(1, keepPlace / 3);
                return new Blocked(keys.channel(), !queue ? ttl : ttl < 0 ? refresh : Math.min(ttl, refresh));
            }

            @Override
            public String waitName() {
                return waitName;
            }

            @Override
            public boolean handedOver(long token) {
                unmarkQueued();
                // One more round trip, only for a lease longer than the watchdog timeout or with replica-sync.
                if (!commands.confirmHandOff(keys, owner, redisLease, claimLease)) {
                    log.warn("The hand-off of " + describe(LockKind.PLAIN, keys.name()) + " to " + owner + " ran out its claim lease of "
                            + claimLease + " ms before the waiter could extend it; waiting on");
                    return false;
                }
                acquired(keys, owner, LockKind.PLAIN, 1, token, leaseMillis);
                return true;
            }

            @Override
            void withdraw() {
                if (commands.withdraw(keys, owner, member, redisLease) && log.isDebugEnabled()) {
                    log.debug("Passed on " + describe(LockKind.PLAIN, keys.name()) + ", handed to " + owner + " as it stopped waiting");
                }
            }
        };
    }

    /**
     * A wait that may have a place in a wait queue. Whoever stops it first, the waiting thread or a
     * closing Locker, withdraws the place, once.
     */
    private abstract class QueuedWait implements Attempt {
        /** Written by the waiting thread and a closing Locker. */
        private volatile boolean queued;

        boolean queued() {
            return queued;
        }

        synchronized void markQueued() {
            queued = true;
            queuedWaits.add(this);
        }

        /** @return whether it may have had a place, which the caller now withdraws */
        synchronized boolean unmarkQueued() {
            boolean was = queued;
            queued = false;
            queuedWaits.remove(this);
            return was;
        }

        @Override
        public final void abandon() {
            if (unmarkQueued()) {
                withdraw();
            }
        }

        /** Takes the place out of the queue (and passes on a lock handed to it meanwhile). */
        abstract void withdraw();
    }

    private Attempt multiLockAttempt(List<LockKeys> keys, String owner, long leaseMillis, long redisLease) {
        List<List<LockKeys>> groups = bySlot(keys);
        return queue -> {
            List<LockKeys> taken = new ArrayList<>();
            List<LockCommands.Acquisition> results = new ArrayList<>();
            for (List<LockKeys> group : groups) {
                LockCommands.Acquisition attempt;
                try {
                    attempt = commands.acquire(group, owner, redisLease, firstHolds(group, owner), queue);
                } catch (LockRedisException e) {
                    giveBack(taken, owner, redisLease);
                    throw e;
                }
                if (!attempt.acquired()) {
                    giveBack(taken, owner, redisLease);
                    return new Blocked(group.get(attempt.blockedIndex()).channel(), unqueuedRecheck(attempt.holderTtlMillis()));
                }
                taken.addAll(group);
                results.add(attempt);
            }
            for (int g = 0; g < groups.size(); g++) {
                for (int i = 0; i < groups.get(g).size(); i++) {
                    acquired(groups.get(g).get(i), owner, LockKind.PLAIN, results.get(g).holdCounts()[i], results.get(g).tokens()[i], leaseMillis);
                }
            }
            return null;
        };
    }

    /**
     * Per lock, whether this instance knows of no hold of {@code owner}: Redis then restarts the count
     * at 1, so a hold left by an acquisition whose reply timed out cannot pose as a re-entry.
     */
    private boolean[] firstHolds(List<LockKeys> group, String owner) {
        boolean[] first = new boolean[group.size()];
        for (int i = 0; i < group.size(); i++) {
            Hold known = holds.get(new Hold.Id(group.get(i).name(), owner, LockKind.PLAIN));
            first[i] = known == null || known.lost;
        }
        return first;
    }

    /** Undoes the part of a multi-lock taken before a later slot group was found held. */
    private void giveBack(List<LockKeys> taken, String owner, long redisLease) {
        for (LockKeys keys : taken) {
            Hold earlier = holds.get(new Hold.Id(keys.name(), owner, LockKind.PLAIN));
            long restore = earlier == null ? redisLease : earlier.watched ? watchdog.timeout().toMillis() : earlier.leaseMillis;
            try {
                commands.release(keys, owner, restore);
            } catch (LockRedisException e) {
                log.warn("Could not give back " + keys.name() + " after a partial multi-lock; it is freed when its lease of "
                        + redisLease + " ms ends", e);
            }
        }
    }

    private Attempt fairAttempt(LockKeys keys, String owner, long leaseMillis, long redisLease) {
        long keepPlace = watchdog.timeout().toMillis();
        String turnChannel = keys.turnChannelPrefix() + owner;
        return new QueuedWait() {

            @Override
            public Blocked tryOnce(boolean queue) {
                Hold known = holds.get(new Hold.Id(keys.name(), owner, LockKind.PLAIN));
                if (queue) {
                    markQueued(); // before the call: one whose reply is lost may have queued all the same
                }
                LockCommands.Acquisition attempt = commands.acquireFair(keys, owner, redisLease, queue ? keepPlace : 0, known == null || known.lost);
                if (attempt.acquired()) {
                    unmarkQueued();
                    acquired(keys, owner, LockKind.FAIR, attempt.holdCounts()[0], attempt.tokens()[0], leaseMillis);
                    return null;
                }
                // Come back before the place in the queue lapses, as the watchdog does for a lease.
                long refresh = Math.max(1, keepPlace / 3);
                long ttl = attempt.holderTtlMillis();
                return new Blocked(turnChannel, ttl < 0 ? refresh : Math.min(ttl, refresh));
            }

            @Override
            void withdraw() {
                commands.leaveFairQueue(keys, owner);
            }
        };
    }

    private Attempt readWriteAttempt(LockKind kind, LockKeys keys, String owner, long leaseMillis, long redisLease) {
        if (kind == LockKind.WRITE && holdsLive(keys, owner, LockKind.READ) && !holdsLive(keys, owner, LockKind.WRITE)) {
            throw new IllegalMonitorStateException("Cannot take the write lock of '" + keys.key() + "' while holding its read lock: "
                    + "the writer would wait for its own read hold forever. Release the read lock first (taking the read lock "
                    + "while holding the write lock is fine).");
        }
        return queue -> {
            boolean firstOfKind = !holdsLive(keys, owner, kind);
            boolean holdsNothing = firstOfKind && !holdsLive(keys, owner, kind == LockKind.READ ? LockKind.WRITE : LockKind.READ);
            LockCommands.Acquisition attempt = commands.acquireReadWrite(keys, kind, owner, redisLease, holdsNothing, firstOfKind);
            if (!attempt.acquired()) {
                return new Blocked(keys.channel(), unqueuedRecheck(attempt.holderTtlMillis()));
            }
            acquired(keys, owner, kind, attempt.holdCounts()[0], attempt.tokens()[0], leaseMillis);
            return null;
        };
    }

    /**
     * How long a waiter without a place in a wait queue (a multi-lock, a read-write lock) parks at most
     * before it looks again. Plain locks pass a lock to their queued waiters without a release message,
     * and a lease that runs out publishes nothing: such a waiter may hear nothing while the lock changes
     * hands or frees, so like a queued waiter refreshing its place it looks every ninth of the watchdog
     * timeout, not only when the lease it last saw would end.
     */
    private long unqueuedRecheck(long holderTtlMillis) {
        long bound = Math.max(1, watchdog.timeout().toMillis() / 9);
        return holderTtlMillis < 0 ? bound : Math.min(holderTtlMillis, bound);
    }

    /**
     * Whether this instance knows of a hold of {@code owner} in {@code slot} that Redis may still have. A
     * hold taken with a lease is not watched, so nothing reports its end: once the lease has surely run
     * out it no longer counts (a read hold must not keep its owner from the write lock when Redis
     * dropped it); its unlock still reports it lost.
     */
    private boolean holdsLive(LockKeys keys, String owner, LockKind slot) {
        Hold known = holds.get(new Hold.Id(keys.name(), owner, slot));
        return known != null && !known.lost && (known.watched || !known.leaseSurelyEnded());
    }

    private void acquired(LockKeys keys, String owner, LockKind kind, long holdCount, long token, long leaseMillis) {
        Hold.Id id = new Hold.Id(keys.name(), owner, kind.holdSlot());
        Hold hold = holds.get(id);
        boolean threadOwned = owner.equals(currentOwner());
        if (holdCount == 1 || hold == null) {
            if (hold != null) {
                forget(hold); // a hold lost earlier and never unlocked
            }
            hold = new Hold(keys, owner, kind, token, holdCount, leaseMillis, threadOwned, this::publishLost);
            hold.name = LockNameScope.current();
            holds.put(id, hold);
        } else {
            hold.count = holdCount;
            if (!hold.watched && leaseMillis != WATCHDOG_LEASE) {
                hold.leaseMillis = Math.max(hold.leaseMillis, leaseMillis); // a re-entry never shortens the lock's life
            }
        }
        if (leaseMillis != WATCHDOG_LEASE) {
            long endsNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
            hold.leaseEndsNanos = holdCount == 1 || hold.leaseEndsNanos == Long.MAX_VALUE ? endsNanos : Math.max(hold.leaseEndsNanos, endsNanos);
        }
        if (leaseMillis == WATCHDOG_LEASE && !hold.watched) {
            hold.watched = true;
            watchdog.watch(hold);
        }
        if (threadOwned) { // a token owner's lock may end on another thread: no thread-local for it
            FencingTokens.record(keys.key(), hold.tokenHolder, hold.token);
        }
        if (log.isDebugEnabled()) {
            log.debug("Acquired " + describe(kind, keys.name()) + " (hold " + holdCount + ", token " + hold.token + ", "
                    + (leaseMillis == WATCHDOG_LEASE ? "watchdog" : "lease " + leaseMillis + " ms") + ")");
        }
    }

    /** Forgets a hold that ended; the thread's fencing token goes once it holds nothing else on the key. */
    private void forgetFinal(Hold hold) {
        forget(hold);
        boolean holdsMore = false;
        for (LockKind slot : List.of(LockKind.PLAIN, LockKind.READ, LockKind.WRITE)) {
            holdsMore |= holds.containsKey(new Hold.Id(hold.keys.name(), hold.owner, slot));
        }
        if (!holdsMore) {
            FencingTokens.forget(hold.keys.key(), hold.tokenHolder);
        }
    }

    /** Groups keys by cluster hash slot, slots ascending and keys sorted within one: every owner takes them in the same order. */
    private static List<List<LockKeys>> bySlot(List<LockKeys> keys) {
        Map<Integer, List<LockKeys>> groups = new TreeMap<>();
        for (LockKeys lock : keys) {
            groups.computeIfAbsent(ClusterSlotHashUtil.calculateSlot(lock.name()), slot -> new ArrayList<>()).add(lock);
        }
        return new ArrayList<>(groups.values());
    }

    private List<String> inTakingOrder(List<String> keys) {
        if (keys.size() == 1) {
            return keys;
        }
        Comparator<String> order = Comparator.comparingInt((String key) -> ClusterSlotHashUtil.calculateSlot(keyPrefix + key))
                .thenComparing(Comparator.naturalOrder());
        return keys.stream().sorted(order).toList();
    }

    private void forget(Hold hold) {
        holds.remove(hold.id(), hold);
        if (hold.watched) {
            watchdog.unwatch(hold);
        }
    }

    private void publishLost(Hold hold, String reason) {
        if (LockLostEvent.OWNER_THREAD_TERMINATED.equals(reason)) {
            holds.remove(hold.id(), hold); // nobody is left to unlock it
        }
        observer.lost(observed(hold), true);
        lostEvents.publish(new LockLostEvent(this, hold.keys.key(), hold.keys.name(), hold.owner, reason)); // off the watchdog thread
    }

    private static LockObserver.ObservedLock observed(Hold hold) {
        return new LockObserver.ObservedLock(hold.keys.key(), hold.keys.name(), kindName(hold.kind), hold.name);
    }

    /** A multi-lock is observed as one acquisition, named by its first key in taking order. */
    private static LockObserver.ObservedLock observed(LockKind kind, List<LockKeys> keys) {
        if (keys.size() == 1) {
            return new LockObserver.ObservedLock(keys.get(0).key(), keys.get(0).name(), kindName(kind), LockNameScope.current());
        }
        String kindName = keys.size() > 1 ? "multi" : kindName(kind);
        return new LockObserver.ObservedLock(describe(keys.stream().map(LockKeys::key).toList()), keys.get(0).name(), kindName,
                LockNameScope.current());
    }

    private LockLostException lostException(Hold hold, String why) {
        return new LockLostException(hold.keys.key(), "Lock '" + hold.keys.key() + "' (Redis key " + hold.keys.name()
                + ") was lost before owner " + hold.owner + " unlocked it: " + why
                + ". Another owner may have held it meanwhile.");
    }

    private List<LockKeys> keys(List<String> keys) {
        if (keys.size() == 1) {
            return List.of(keys(keys.get(0)));
        }
        keys.forEach(LockKeys::validate);
        return inTakingOrder(keys).stream().map(this::keys).toList();
    }

    private static String describe(List<String> keys) {
        return keys.size() == 1 ? keys.get(0) : keys.toString();
    }

    private static String describe(LockKind kind, String key) {
        return switch (kind) {
            case PLAIN -> "'" + key + "'";
            case FAIR -> "fair lock '" + key + "'";
            case READ -> "the read lock of '" + key + "'";
            case WRITE -> "the write lock of '" + key + "'";
        };
    }

}
