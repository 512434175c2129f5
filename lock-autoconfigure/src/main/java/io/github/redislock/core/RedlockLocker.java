package io.github.redislock.core;

import io.github.redislock.core.hold.Hold;
import io.github.redislock.core.hold.HoldAtLeast;
import io.github.redislock.core.hold.LostLockEvents;
import io.github.redislock.core.pubsub.Waiting;
import io.github.redislock.core.redlock.RedlockMasters;
import io.github.redislock.core.redlock.RedlockRenewal;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.core.script.LockTimes;
import io.github.redislock.core.wait.LockAttempt;
import io.github.redislock.core.wait.LockAttempts;
import io.github.redislock.core.wait.OwnerTurns;
import io.github.redislock.core.wait.ParkedWait;
import io.github.redislock.Locker;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisMultiLock;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.LockLostException;
import io.github.redislock.LockLostEvent;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;


import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A {@link Locker} that follows the Redlock algorithm over independent Redis masters: the same owner
 * field is written to every node with a short per-node timeout, and the lock counts as taken only when
 * a majority took it while the lease still has time left (validity = lease - elapsed - clock drift,
 * drift = 1% of the lease + 2 ms). Failed attempts are undone on every node and retried after a random
 * delay, as the algorithm prescribes, so competing clients do not retry in lock-step. The watchdog's
 * renewals must also reach a majority; a round too few masters answer in time is retried, and the
 * lock is reported lost only when a majority denies having it or its validity has run out.
 *
 * <p>Reentrant like the plain lock. The other kinds (fair, read-write, multi-lock) and fencing tokens
 * are not offered: each node would count its own tokens, and no majority rule makes them one sequence.
 */
public class RedlockLocker extends AbstractLocker {

    private static final Log log = LogFactory.getLog(RedlockLocker.class);

    private final RedlockMasters masters;
    private final RedlockRenewal renewal;
    private final int quorum;
    private final Duration retryDelay;
    private final LockWatchdog watchdog;
    private final LostLockEvents lostEvents;
    private final Map<String, Hold> holds = new ConcurrentHashMap<>();
    private final OwnerTurns turns = new OwnerTurns();
    /** Per owner of a key ({@link #holdId}), the undos of its failed attempts still running, one future per master. */
    private final Map<String, List<CompletableFuture<Void>>> pendingUndos = new ConcurrentHashMap<>();

    /**
     * @param nodes       one connection factory per independent master (3 or more; an odd count is best)
     * @param nodeNames   how log lines and errors name each node (its URL without password)
     * @param nodeTimeout how long one node may take to answer before it counts as failed
     * @param retryDelay  the average pause between two attempts of a waiting caller
     */
    public RedlockLocker(List<RedisConnectionFactory> nodes, List<String> nodeNames, Duration nodeTimeout, Duration retryDelay,
                         Duration watchdogTimeout, String keyPrefix, ApplicationEventPublisher events) {
        super(keyPrefix);
        this.masters = new RedlockMasters(nodes, nodeNames, nodeTimeout, keyPrefix);
        this.renewal = new RedlockRenewal(masters);
        this.quorum = masters.quorum();
        this.retryDelay = retryDelay;
        this.lostEvents = new LostLockEvents(Objects.requireNonNull(events, "events"));
        this.watchdog = new LockWatchdog(watchdogTimeout, renewal::renew);
    }

    @Override
    public WatchdogState watchdogState() {
        return watchdog;
    }

    @Override
    Duration watchdogTimeout() {
        return watchdog.timeout();
    }

    /** It has no release channels: a wait looks again after a pause (see {@link #acquire}). */
    @Override
    CompletableFuture<Waiting> joinReleases(String channel, String waitName, String what, Runnable onWake) {
        throw new IllegalStateException("A Redlock wait has no release channel to join for " + what);
    }

    /** How many masters must agree. */
    public int getQuorum() {
        return quorum;
    }

    @Override
    public void lockInterruptibly(String key) throws InterruptedException {
        acquire(keys(key), currentOwner(), WAIT_FOREVER, WATCHDOG_LEASE, true);
    }

    @Override
    public boolean tryLock(String key) {
        try {
            return acquire(keys(key), currentOwner(), 0, WATCHDOG_LEASE, false);
        } catch (InterruptedException e) {
            throw new AssertionError("A lock attempt without waiting cannot be interrupted", e);
        }
    }

    @Override
    public boolean tryLock(String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return acquire(keys(key), currentOwner(), LockTimes.waitNanos(key, waitTime, unit), LockTimes.leaseMillis(key, leaseTime, unit), true);
    }

    @Override
    public boolean tryLockAs(String ownerToken, String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return acquire(keys(key), tokenOwner(ownerToken), LockTimes.waitNanos(key, waitTime, unit), LockTimes.leaseMillis(key, leaseTime, unit), true);
    }

    @Override
    public void unlock(String key) {
        release(heldKeys(key), currentOwner());
    }

    @Override
    public void unlockAs(String ownerToken, String key) {
        unlockAs(ownerToken, key, Duration.ZERO);
    }

    /** Keeps the lock on every master that still has it, each for the same relative time (see {@link HoldAtLeast}). */
    @Override
    public void unlock(String key, Duration holdAtLeast) {
        release(heldKeys(key), currentOwner(), HoldAtLeast.checked(key, holdAtLeast));
    }

    /** In the token's turn, as {@link RedisLocker#unlockAs} (see {@link OwnerTurns#forRelease}). */
    @Override
    public void unlockAs(String ownerToken, String key, Duration holdAtLeast) {
        LockKeys keys = heldKeys(key);
        String owner = tokenOwner(ownerToken);
        Duration kept = HoldAtLeast.checked(key, holdAtLeast);
        turns.release(keys.name(), owner, holds.get(holdId(keys, owner)), () -> release(keys, owner, kept));
    }

    /** Whether a majority of the masters has the lock. */
    @Override
    public boolean isLocked(String key) {
        LockKeys keys = keys(key);
        return masters.onEvery(node -> node.exists(keys)).stream().filter(Boolean.TRUE::equals).count() >= quorum;
    }

    /** The hold count a majority of the masters agree on (at least). */
    @Override
    public int getHoldCount(String key) {
        LockKeys keys = keys(key);
        String owner = currentOwner();
        List<Integer> counts = new ArrayList<>(masters.onEvery(node -> node.holdCount(keys, owner)).stream()
                .map(count -> count == null ? 0 : count).toList());
        counts.sort((a, b) -> Integer.compare(b, a));
        return counts.get(quorum - 1);
    }

    @Override
    public long fencingToken(String key) {
        throw unsupported("fencing tokens", "each master counts its own tokens, and no majority rule makes them one increasing sequence");
    }

    @Override
    public RedisLock getLock(String key) {
        LockKeys.validate(key);
        return new LockView(this, LockKind.PLAIN, key);
    }

    @Override
    public RedisLock getFairLock(String key) {
        throw unsupported("fair locks", "the wait queue would have to be agreed on by a majority");
    }

    @Override
    public RedisReadWriteLock getReadWriteLock(String key) {
        throw unsupported("read-write locks", "their per-reader leases are not part of the Redlock algorithm");
    }

    @Override
    public RedisMultiLock getMultiLock(String... keys) {
        throw unsupported("multi-locks", "take the keys one by one in a fixed order instead");
    }

    /** It queues nowhere: a closing locker has no place to withdraw. */
    @Override
    void withdrawQueuedWaits() {
    }

    @Override
    boolean heldByOthers(String closingOwner) {
        return holds.values().stream().anyMatch(hold -> releasableByOthers(hold, closingOwner));
    }

    /**
     * Last step of the close (see {@link AbstractLocker#close()}), once its waits ended and its holders
     * had their moment to unlock: stops renewing (held locks expire on every master within the watchdog
     * timeout) and lets the undos still running finish before the masters' threads stop.
     */
    @Override
    void stopRenewalAndSubscriptions() {
        watchdog.close();
        lostEvents.close();
        holds.clear();
        renewal.clear();
        List<CompletableFuture<Void>> undoing = pendingUndos.values().stream().flatMap(List::stream).toList();
        masters.answersBy(undoing, System.nanoTime() + masters.nodeTimeout().toNanos());
        pendingUndos.clear();
        masters.close();
    }

    @Override
    void lockUninterruptibly(String key, long leaseMillis) {
        try {
            acquire(keys(key), currentOwner(), WAIT_FOREVER, leaseMillis, false);
        } catch (InterruptedException e) {
            throw new AssertionError("An uninterruptible wait cannot be interrupted", e);
        }
    }

    /**
     * Waits on the calling thread in the one wait state machine ({@link ParkedWait}): a round on every
     * master, and while no majority took it, another after a random pause (nothing announces a release
     * on all masters at once).
     */
    private boolean acquire(LockKeys keys, String owner, long waitNanos, long leaseMillis, boolean interruptible) throws InterruptedException {
        long redisLease = redisLease(leaseMillis);
        LockAttempts.Synchronous rounds = new LockAttempts.Synchronous() {
            private final boolean sharedOwner = !owner.equals(currentOwner());
            private OwnerTurns.Turn turn;

            @Override
            public LockAttempt.Blocked tryOnce(boolean queue) {
                long attemptStart = System.nanoTime();
                long holdCount = attemptOnMajority(keys, owner, redisLease);
                if (holdCount > 0) {
                    acquired(keys, owner, holdCount, leaseMillis, attemptStart);
                    return null;
                }
                return new LockAttempt.Blocked(null, Math.max(1, TimeUnit.NANOSECONDS.toMillis(randomRetryDelayNanos())));
            }

            @Override
            public OwnerTurns.Turn turn() {
                if (turn == null) {
                    turn = turns.take(keys.name(), owner, sharedOwner);
                }
                return turn;
            }
        };
        return new ParkedWait(waitHost, rounds, () -> "'" + keys.key() + "'", waitNanos, () -> giveBack(keys, owner)).await(interruptible);
    }

    /** Releases what an acquisition just took, for a wait told to stop as it got it. */
    private CompletableFuture<Void> giveBack(LockKeys keys, String owner) {
        try {
            release(keys, owner);
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * One round of the algorithm: ask every master at once, count the ones that took the lock in time.
     * A master still undoing this owner's previous failed round (see {@link #undo}) is not asked and
     * counts as failed: sent before that undo, this round's acquire could be the one the undo deletes.
     *
     * @return the hold count on success, 0 when no majority took it in time (what was taken is undone)
     */
    private long attemptOnMajority(LockKeys keys, String owner, long leaseMillis) {
        long start = System.nanoTime();
        String id = holdId(keys, owner);
        Hold known = holds.get(id);
        boolean[] firstHold = {known == null || known.lost};
        List<CompletableFuture<Void>> undoing = pendingUndos.get(id);
        List<CompletableFuture<LockCommands.Acquisition>> calls = new ArrayList<>(masters.size());
        for (int i = 0; i < masters.size(); i++) {
            boolean stillUndoing = undoing != null && !undoing.get(i).isDone();
            calls.add(stillUndoing ? CompletableFuture.completedFuture(null)
                    : masters.call(masters.node(i), node -> node.acquire(List.of(keys), owner, leaseMillis, firstHold)));
        }
        List<LockCommands.Acquisition> answers = masters.answersBy(calls, start + masters.nodeTimeout().toNanos());
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long validity = leaseMillis - elapsedMillis - RedlockRenewal.drift(leaseMillis);
        int took = 0;
        long holdCount = 0;
        for (LockCommands.Acquisition answer : answers) {
            if (answer != null && answer.acquired()) {
                took++;
                holdCount = Math.max(holdCount, answer.holdCounts()[0]);
            }
        }
        if (took >= quorum && validity > 0) {
            return holdCount;
        }
        undo(keys, owner, calls, undoing);
        if (log.isDebugEnabled()) {
            log.debug("Redlock attempt on " + keys.name() + " reached " + took + " of " + masters.size()
                    + " masters (quorum " + quorum + "), validity " + validity + " ms; undone");
        }
        return 0;
    }

    /**
     * Gives back exactly what the attempt took, on each master once its answer is in, also when it
     * arrives after the node timeout: a late acquire is undone after it ran, never raced by its undo.
     * Until an undo is done, the owner's next attempts leave that master out (see
     * {@link #attemptOnMajority}), so the undo cannot land after their acquire and delete the hold
     * they counted.
     *
     * @param undoing the undos of the owner's earlier attempt, still running on the masters this attempt left out
     */
    private void undo(LockKeys keys, String owner, List<CompletableFuture<LockCommands.Acquisition>> calls,
                      List<CompletableFuture<Void>> undoing) {
        Hold hold = holds.get(holdId(keys, owner));
        long restore = hold == null ? 1 : restoreLease(hold);
        List<CompletableFuture<Void>> undos = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            LockCommands node = masters.node(i);
            String name = masters.name(i);
            CompletableFuture<Void> undo = calls.get(i).handle((answer, failure) -> {
                if (answer != null && answer.acquired()) {
                    try {
                        node.release(keys, owner, restore);
                    } catch (RuntimeException e) {
                        log.debug("Redlock master " + name + " could not undo " + keys.name() + "; it expires with its lease: " + e);
                    }
                }
                return null;
            });
            undos.add(undoing == null ? undo : undo.thenCombine(undoing.get(i), (mine, earlier) -> null));
        }
        String id = holdId(keys, owner);
        pendingUndos.put(id, undos);
        CompletableFuture.allOf(undos.toArray(CompletableFuture[]::new)).thenRun(() -> pendingUndos.remove(id, undos));
    }

    /** @param validFromNanos when the attempt that took it started: its validity runs from then */
    private void acquired(LockKeys keys, String owner, long holdCount, long leaseMillis, long validFromNanos) {
        String id = holdId(keys, owner);
        Hold hold = holds.get(id);
        if (holdCount == 1 || hold == null) {
            if (hold != null) {
                forget(hold);
            }
            hold = new Hold(keys, owner, LockKind.PLAIN, 0, holdCount, leaseMillis, owner.equals(currentOwner()), this::publishLost);
            holds.put(id, hold);
        }
        hold.count = holdCount;
        if (leaseMillis == WATCHDOG_LEASE && !hold.watched) {
            hold.watched = true;
            renewal.confirmed(hold, validFromNanos);
            watchdog.watch(hold);
        }
    }

    private void release(LockKeys keys, String owner) {
        release(keys, owner, Duration.ZERO);
    }

    private void release(LockKeys keys, String owner, Duration holdAtLeast) {
        Hold hold = holds.get(holdId(keys, owner));
        if (hold == null) {
            throw new IllegalMonitorStateException("Cannot unlock '" + keys.key() + "' (Redis key " + keys.name()
                    + "): it is not held by owner " + owner + " (calling thread " + Thread.currentThread().getName() + ")");
        }
        boolean finalRelease = hold.count <= 1;
        long keep = HoldAtLeast.keepMillis(hold, holdAtLeast);
        if (finalRelease && hold.watched) {
            watchdog.unwatch(hold);
        }
        long restore = finalRelease ? 0 : restoreLease(hold); // 0: the owner's last hold, freed whatever the masters count
        List<long[]> answers = masters.onEvery(node -> new long[] {node.release(keys, owner, restore, keep)});
        long confirmed = answers.stream().filter(answer -> answer != null && answer[0] >= 0).count();
        if (hold.lost || confirmed < quorum) {
            forget(hold);
            throw new LockLostException(keys.key(), "Lock '" + keys.key() + "' (Redis key " + keys.name() + ") was lost before owner "
                    + owner + " unlocked it: only " + confirmed + " of " + masters.size() + " masters still had it (quorum " + quorum
                    + "). Another owner may have held it meanwhile.");
        }
        hold.count = finalRelease ? 0 : hold.count - 1;
        if (hold.count == 0) {
            forget(hold);
        }
    }

    private long randomRetryDelayNanos() {
        long average = retryDelay.toNanos();
        return average / 2 + ThreadLocalRandom.current().nextLong(Math.max(1, average));
    }

    private long restoreLease(Hold hold) {
        return hold.watched ? watchdog.timeout().toMillis() : hold.leaseMillis;
    }

    private void forget(Hold hold) {
        holds.remove(holdId(hold.keys, hold.owner), hold);
        if (hold.watched) {
            watchdog.unwatch(hold);
        }
        renewal.forget(hold); // after the unwatch: a renewal in flight may still confirm it
    }

    private void publishLost(Hold hold, String reason) {
        if (LockLostEvent.OWNER_THREAD_TERMINATED.equals(reason)) {
            forget(hold); // nobody is left to unlock it
        }
        lostEvents.publish(new LockLostEvent(this, hold.keys.key(), hold.keys.name(), hold.owner, reason)); // off the watchdog thread
    }

    private static String holdId(LockKeys keys, String owner) {
        return keys.name() + " " + owner;
    }

    // Behind the LockView of getLock(key): only the plain kind exists here.

    @Override
    void lockUninterruptibly(LockKind kind, List<String> keys, long leaseMillis) {
        lockUninterruptibly(plainKey(kind, keys), leaseMillis);
    }

    @Override
    void lockInterruptibly(LockKind kind, List<String> keys) throws InterruptedException {
        lockInterruptibly(plainKey(kind, keys));
    }

    @Override
    boolean tryLock(LockKind kind, List<String> keys) {
        return tryLock(plainKey(kind, keys));
    }

    @Override
    boolean tryLock(LockKind kind, List<String> keys, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return tryLock(plainKey(kind, keys), waitTime, leaseTime, unit);
    }

    @Override
    void unlock(LockKind kind, String key) {
        unlock(plainKey(kind, List.of(key)));
    }

    @Override
    int holdCount(LockKind kind, String key) {
        return getHoldCount(plainKey(kind, List.of(key)));
    }

    @Override
    long fencingToken(LockKind kind, String key) {
        return fencingToken(plainKey(kind, List.of(key)));
    }

    private static String plainKey(LockKind kind, List<String> keys) {
        if (kind != LockKind.PLAIN || keys.size() != 1) {
            throw new IllegalStateException("Redlock offers only single-key plain locks, not " + kind + " on " + keys);
        }
        return keys.get(0);
    }

    private static UnsupportedOperationException unsupported(String what, String why) {
        return new UnsupportedOperationException("Redlock (redis-lock.redlock.nodes) does not offer " + what + ": " + why);
    }
}
