package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import io.github.redislock.watchdog.LockWatchdog;
import io.github.redislock.watchdog.WatchedLock;

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

    private final List<LockCommands> nodes;
    private final List<String> nodeNames;
    private final int quorum;
    private final Duration nodeTimeout;
    private final Duration retryDelay;
    private final LockWatchdog watchdog;
    private final LostLockEvents lostEvents;
    private final Map<String, Hold> holds = new ConcurrentHashMap<>();
    private final ExecutorService fanOut;
    /** Per owner of a key ({@link #holdId}), the undos of its failed attempts still running, one future per master. */
    private final Map<String, List<CompletableFuture<Void>>> pendingUndos = new ConcurrentHashMap<>();
    /** When the last majority confirmation of each watched lock was asked for (System.nanoTime()): its validity runs from there. */
    private final Map<WatchedLock, Long> confirmedAt = new ConcurrentHashMap<>();

    /**
     * @param nodes       one connection factory per independent master (3 or more; an odd count is best)
     * @param nodeNames   how log lines and errors name each node (its URL without password)
     * @param nodeTimeout how long one node may take to answer before it counts as failed
     * @param retryDelay  the average pause between two attempts of a waiting caller
     */
    public RedlockLocker(List<RedisConnectionFactory> nodes, List<String> nodeNames, Duration nodeTimeout, Duration retryDelay,
                         Duration watchdogTimeout, String keyPrefix, ApplicationEventPublisher events) {
        super(keyPrefix);
        if (nodes.size() < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent Redis masters, but got " + nodes.size());
        }
        this.nodes = nodes.stream().map(LockCommands::new).toList();
        this.nodeNames = List.copyOf(nodeNames);
        this.quorum = nodes.size() / 2 + 1;
        this.nodeTimeout = nodeTimeout;
        this.retryDelay = retryDelay;
        this.lostEvents = new LostLockEvents(Objects.requireNonNull(events, "events"));
        this.fanOut = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "redis-lock-redlock");
            thread.setDaemon(true);
            return thread;
        });
        this.watchdog = new LockWatchdog(watchdogTimeout, this::renewOnMajority);
        // Connect to every master now, not inside the first attempt's node timeout.
        this.nodes.forEach(node -> fanOut.execute(() -> {
            try {
                node.exists(LockKeys.of(keyPrefix, "__connect"));
            } catch (RuntimeException e) {
                log.debug("Redlock master not reachable yet: " + e);
            }
        }));
        if (nodes.size() % 2 == 0) {
            log.warn("Redlock over an even number of masters (" + nodes.size() + ") tolerates no more failures than "
                    + (nodes.size() - 1) + " would; an odd count is recommended");
        }
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
        release(keys(key), currentOwner());
    }

    @Override
    public void unlockAs(String ownerToken, String key) {
        release(keys(key), tokenOwner(ownerToken));
    }

    /** Whether a majority of the masters has the lock. */
    @Override
    public boolean isLocked(String key) {
        LockKeys keys = keys(key);
        return onEveryNode(node -> node.exists(keys)).stream().filter(Boolean.TRUE::equals).count() >= quorum;
    }

    /** The hold count a majority of the masters agree on (at least). */
    @Override
    public int getHoldCount(String key) {
        LockKeys keys = keys(key);
        String owner = currentOwner();
        List<Integer> counts = new ArrayList<>(onEveryNode(node -> node.holdCount(keys, owner)).stream()
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
        return new View(key);
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

    /** Stops renewing; held locks expire on every master within the watchdog timeout. */
    @Override
    public void close() {
        closed = true;
        watchdog.close();
        lostEvents.close();
        holds.clear();
        confirmedAt.clear();
        pendingUndos.clear();
        fanOut.shutdownNow();
    }

    @Override
    void lockUninterruptibly(String key, long leaseMillis) {
        try {
            acquire(keys(key), currentOwner(), WAIT_FOREVER, leaseMillis, false);
        } catch (InterruptedException e) {
            throw new AssertionError("An uninterruptible wait cannot be interrupted", e);
        }
    }

    private boolean acquire(LockKeys keys, String owner, long waitNanos, long leaseMillis, boolean interruptible) throws InterruptedException {
        long redisLease = leaseMillis == WATCHDOG_LEASE ? watchdog.timeout().toMillis() : leaseMillis;
        if (interruptible && Thread.interrupted()) { // as java.util.concurrent's locks: an interrupt comes first, even when the lock is free
            throw new InterruptedException("Interrupted before trying to take '" + keys.key() + "'");
        }
        long start = System.nanoTime();
        boolean interrupted = false;
        try {
            while (true) {
                long attemptStart = System.nanoTime();
                long holdCount = attemptOnMajority(keys, owner, redisLease);
                if (holdCount > 0) {
                    acquired(keys, owner, holdCount, leaseMillis, attemptStart);
                    return true;
                }
                long remaining = waitNanos == WAIT_FOREVER ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
                if (remaining <= 0) {
                    return false;
                }
                long delay = Math.min(remaining, randomRetryDelayNanos());
                if (interruptible) {
                    TimeUnit.NANOSECONDS.sleep(delay);
                } else {
                    LockSupport.parkNanos(delay);
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
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
        List<CompletableFuture<LockCommands.Acquisition>> calls = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            LockCommands node = nodes.get(i);
            boolean stillUndoing = undoing != null && !undoing.get(i).isDone();
            calls.add(stillUndoing ? CompletableFuture.completedFuture(null)
                    : CompletableFuture.supplyAsync(() -> node.acquire(List.of(keys), owner, leaseMillis, firstHold), fanOut));
        }
        List<LockCommands.Acquisition> answers = answersBy(calls, start + nodeTimeout.toNanos());
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long validity = leaseMillis - elapsedMillis - drift(leaseMillis);
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
            log.debug("Redlock attempt on " + keys.name() + " reached " + took + " of " + nodes.size()
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
            LockCommands node = nodes.get(i);
            String name = nodeNames.get(i);
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
            hold = new Hold(keys, owner, LockKind.PLAIN, 0, holdCount, leaseMillis, this::publishLost);
            holds.put(id, hold);
        }
        hold.count = holdCount;
        if (leaseMillis == WATCHDOG_LEASE && !hold.watched) {
            hold.watched = true;
            confirmedAt.put(hold, validFromNanos);
            watchdog.watch(hold);
        }
    }

    private void release(LockKeys keys, String owner) {
        Hold hold = holds.get(holdId(keys, owner));
        if (hold == null) {
            throw new IllegalMonitorStateException("Cannot unlock '" + keys.key() + "' (Redis key " + keys.name()
                    + "): it is not held by owner " + owner + " (calling thread " + Thread.currentThread().getName() + ")");
        }
        boolean finalRelease = hold.count <= 1;
        if (finalRelease && hold.watched) {
            watchdog.unwatch(hold);
        }
        long restore = restoreLease(hold);
        List<long[]> answers = onEveryNode(node -> node.release(List.of(keys), owner, new long[] {restore}));
        long confirmed = answers.stream().filter(answer -> answer != null && answer[0] >= 0).count();
        if (hold.lost || confirmed < quorum) {
            forget(hold);
            throw new LockLostException(keys.key(), "Lock '" + keys.key() + "' (Redis key " + keys.name() + ") was lost before owner "
                    + owner + " unlocked it: only " + confirmed + " of " + nodes.size() + " masters still had it (quorum " + quorum
                    + "). Another owner may have held it meanwhile.");
        }
        hold.count = finalRelease ? 0 : hold.count - 1;
        if (hold.count == 0) {
            forget(hold);
        }
    }

    /**
     * The watchdog's renewal: a lock stays while a majority of the masters renews it. A round in which
     * too few masters answer in time (a pause of this JVM, a slow network) proves nothing: the lock is
     * kept and renewed again on the next tick, and reported lost only when masters enough to leave no
     * majority said they no longer have it, or when its validity since the last round a majority
     * confirmed has run out (lease - clock drift).
     */
    private Set<WatchedLock> renewOnMajority(List<WatchedLock> locks, long leaseMillis) {
        long roundStart = System.nanoTime();
        List<Set<WatchedLock>> notRenewed = onEveryNode(node -> node.renew(locks, leaseMillis));
        long unanswered = notRenewed.stream().filter(Objects::isNull).count();
        long validityNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis - drift(leaseMillis));
        Set<WatchedLock> lost = new HashSet<>();
        int undecided = 0;
        long soonestEndNanos = Long.MAX_VALUE;
        for (WatchedLock lock : locks) {
            long renewed = notRenewed.stream().filter(missing -> missing != null && !missing.contains(lock)).count();
            if (renewed >= quorum) {
                confirmedAt.put(lock, roundStart);
                continue;
            }
            Long confirmed = confirmedAt.get(lock);
            boolean goneOnAMajority = renewed + unanswered < quorum;
            long leftNanos = confirmed == null ? 0 : validityNanos - (System.nanoTime() - confirmed);
            if (goneOnAMajority || leftNanos <= 0) {
                lost.add(lock);
                confirmedAt.remove(lock);
            } else {
                undecided++;
                soonestEndNanos = Math.min(soonestEndNanos, leftNanos);
            }
        }
        if (undecided > 0) {
            log.warn("Redlock renewal of " + undecided + " lock(s) did not reach a majority in time: " + unanswered + " of " + nodes.size()
                    + " masters did not answer within " + nodeTimeout.toMillis() + " ms. Kept while still valid (the first validity ends in "
                    + TimeUnit.NANOSECONDS.toMillis(soonestEndNanos) + " ms); retried on the next tick");
        }
        return lost;
    }

    /** The clock drift the algorithm allows for over {@code leaseMillis}: 1% of it plus 2 ms. */
    private static long drift(long leaseMillis) {
        return leaseMillis / 100 + 2;
    }

    /** Runs {@code command} on every master at once; a master that fails or does not answer within the node timeout gives null. */
    private <T> List<T> onEveryNode(Function<LockCommands, T> command) {
        return answersBy(submitEverywhere(command), System.nanoTime() + nodeTimeout.toNanos());
    }

    private <T> List<CompletableFuture<T>> submitEverywhere(Function<LockCommands, T> command) {
        List<CompletableFuture<T>> calls = new ArrayList<>(nodes.size());
        for (LockCommands node : nodes) {
            calls.add(CompletableFuture.supplyAsync(() -> command.apply(node), fanOut));
        }
        return calls;
    }

    /** The answers in by the deadline (null for a master that failed or is late); interrupts are kept, not obeyed. */
    private <T> List<T> answersBy(List<CompletableFuture<T>> calls, long deadline) {
        List<T> answers = new ArrayList<>(calls.size());
        boolean interrupted = false;
        for (int i = 0; i < calls.size(); i++) {
            T answer = null;
            while (true) {
                try {
                    answer = calls.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException e) {
                    log.debug("Redlock master " + nodeNames.get(i) + " did not answer in time: " + e);
                    break;
                }
            }
            answers.add(answer);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return answers;
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
        confirmedAt.remove(hold); // after the unwatch: a renewal in flight may still confirm it
    }

    private void publishLost(Hold hold) {
        lostEvents.publish(new LockLostEvent(this, hold.keys.key(), hold.keys.name(), hold.owner)); // off the watchdog thread
    }

    private static String holdId(LockKeys keys, String owner) {
        return keys.name() + " " + owner;
    }

    private static UnsupportedOperationException unsupported(String what, String why) {
        return new UnsupportedOperationException("Redlock (redis-lock.redlock.nodes) does not offer " + what + ": " + why);
    }


    /** One key seen as a {@link RedisLock}; the calling thread is the owner. */
    private final class View implements RedisLock {
        private final String key;

        View(String key) {
            this.key = key;
        }

        @Override
        public String getKey() {
            return key;
        }

        @Override
        public long fencingToken() {
            return RedlockLocker.this.fencingToken(key);
        }

        @Override
        public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
            return RedlockLocker.this.tryLock(key, waitTime, leaseTime, unit);
        }

        @Override
        public boolean isHeldByCurrentThread() {
            return RedlockLocker.this.isHeldByCurrentThread(key);
        }

        @Override
        public int getHoldCount() {
            return RedlockLocker.this.getHoldCount(key);
        }

        @Override
        public void lock() {
            RedlockLocker.this.lock(key);
        }

        @Override
        public void lockInterruptibly() throws InterruptedException {
            RedlockLocker.this.lockInterruptibly(key);
        }

        @Override
        public boolean tryLock() {
            return RedlockLocker.this.tryLock(key);
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
            return RedlockLocker.this.tryLock(key, Math.max(0, time), WATCHDOG_LEASE, unit);
        }

        @Override
        public void unlock() {
            RedlockLocker.this.unlock(key);
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException("Distributed lock '" + key + "' does not support conditions");
        }
    }
}
