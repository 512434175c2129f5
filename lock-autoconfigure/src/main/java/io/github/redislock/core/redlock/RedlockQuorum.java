package io.github.redislock.core.redlock;

import io.github.redislock.core.renewal.WatchedLock;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.wait.OwnerTurns;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockRedisException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The script calls of a {@code RedlockLocker} on a quorum of independent masters, which the shared
 * holds, releases and watchdog call as they call one Redis. The algorithm's rules live here, once: an
 * acquisition holds when a majority took it while the lease still has time left (validity = lease -
 * elapsed - clock drift), and what a failed round took is undone; a release goes to every master; a
 * renewal keeps a lock while a majority renews it ({@link RedlockRenewal}).
 */
public final class RedlockQuorum extends LockCommands {

    private static final Log log = LogFactory.getLog(RedlockQuorum.class);

    private final RedlockMasters masters;
    private final RedlockRenewal renewal;
    private final int quorum;
    /** Per owner of a key ({@link RedlockRenewal#id}), the undos of its failed round still running, one future per master. */
    private final Map<String, List<CompletableFuture<Void>>> pendingUndos = new ConcurrentHashMap<>();

    public RedlockQuorum(RedlockMasters masters) {
        this.masters = masters;
        this.renewal = new RedlockRenewal(masters);
        this.quorum = masters.quorum();
    }

    /** How many masters must agree. */
    public int quorum() {
        return quorum;
    }

    /**
     * One round on a single plain lock. A master still undoing this owner's previous failed round (see
     * {@link #undo}) is not asked and counts as failed: that undo could delete this round's acquire.
     *
     * @param firstHold whether the owner holds no hold of the lock as far as its locker knows (the masters then count from 1)
     * @param undoLease the lease a master that granted it keeps when the round fails: 0 for a first hold
     *                  (whatever the master counts for the owner goes), else the owner's hold's own lease
     * @return acquired with the owner's hold count, or blocked; never fails (a master that fails counts as one that said no)
     */
    public CompletableFuture<Acquisition> acquire(LockKeys keys, String owner, long leaseMillis, boolean firstHold, long undoLease) {
        long start = System.nanoTime();
        String id = RedlockRenewal.id(keys.name(), owner);
        List<CompletableFuture<Void>> undoing = pendingUndos.get(id);
        List<LockKeys> group = List.of(keys);
        boolean[] firstHolds = {firstHold};
        List<CompletableFuture<Acquisition>> calls = new ArrayList<>(masters.size());
        for (int i = 0; i < masters.size(); i++) {
            boolean stillUndoing = undoing != null && !undoing.get(i).isDone();
            calls.add(stillUndoing ? CompletableFuture.completedFuture(null)
                    : masters.send(i, (node, index) -> node.acquireAsync(group, owner, leaseMillis, firstHolds, 0, null, false, false)));
        }
        return masters.answersBy(calls, start + masters.nodeTimeout().toNanos()).thenCompose(answers -> {
            long validity = leaseMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) - RedlockRenewal.drift(leaseMillis);
            int took = 0;
            long holdCount = 0;
            for (Acquisition answer : answers) {
                if (answer != null && answer.acquired()) {
                    took++;
                    holdCount = Math.max(holdCount, answer.holdCounts()[0]);
                }
            }
            if (took >= quorum && validity > 0) {
                renewal.confirmed(keys.name(), owner, start);
                return CompletableFuture.completedFuture(new Acquisition(true, new long[] {holdCount}, new long[1], -1, 0));
            }
            List<CompletableFuture<Void>> undos = undo(keys, owner, firstHold, undoLease, calls, undoing);
            if (log.isDebugEnabled()) {
                log.debug("Redlock attempt on " + keys.name() + " reached " + took + " of " + masters.size()
                        + " masters (quorum " + quorum + "), validity " + validity + " ms; undone");
            }
            // The round ends once the masters that answered in time have undone it (a late one's undo runs on): no copy is left behind a try that said no.
            List<CompletableFuture<Void>> undoneInTime = new ArrayList<>(undos.size());
            for (int i = 0; i < undos.size(); i++) {
                undoneInTime.add(answers.get(i) != null ? undos.get(i) : OwnerTurns.NOW);
            }
            return masters.answersBy(undoneInTime, System.nanoTime() + masters.nodeTimeout().toNanos())
                    .thenApply(undone -> new Acquisition(false, new long[0], new long[0], 0, -1));
        });
    }

    /**
     * Gives back what a failed round took, on each master once its answer is in, even after the node
     * timeout: a late acquire is undone after it ran, never raced by its undo. A first hold whose reply
     * was lost is given back too: whatever that master counts for the owner is nobody's.
     *
     * @param undoing the undos of the owner's earlier round, still running on the masters this round left out
     * @return per master, its undo
     */
    private List<CompletableFuture<Void>> undo(LockKeys keys, String owner, boolean firstHold, long undoLease,
                                               List<CompletableFuture<Acquisition>> calls, List<CompletableFuture<Void>> undoing) {
        List<CompletableFuture<Void>> undos = new ArrayList<>(calls.size());
        for (int i = 0; i < calls.size(); i++) {
            int index = i;
            CompletableFuture<Void> undo = calls.get(i)
                    .handle((answer, failure) -> answer != null && answer.acquired() || failure != null && firstHold)
                    .thenCompose(took -> took ? undoOn(index, keys, owner, undoLease) : OwnerTurns.NOW);
            undos.add(undoing == null ? undo : undo.thenCombine(undoing.get(i), (mine, earlier) -> null));
        }
        String id = RedlockRenewal.id(keys.name(), owner);
        pendingUndos.put(id, undos);
        CompletableFuture.allOf(undos.toArray(CompletableFuture[]::new)).thenRun(() -> pendingUndos.remove(id, undos));
        return undos;
    }

    private CompletableFuture<Void> undoOn(int index, LockKeys keys, String owner, long undoLease) {
        return masters.send(index, (node, i) -> node.releaseAsync(List.of(keys), owner, new long[] {undoLease}, new long[1], null))
                .handle((left, failure) -> {
                    if (failure != null) {
                        log.debug("Redlock master " + masters.name(index) + " could not undo " + keys.name() + "; it expires with its lease: " + failure);
                    }
                    return null;
                });
    }

    /**
     * Releases on every master (the shared holds decide the leases: 0 for the owner's last hold).
     *
     * @return per lock, the holds a majority still counts; -1 when masters enough to leave no majority no
     *         longer had it (lost); fails with {@link LockRedisException} when too few answered to tell
     */
    @Override
    public CompletableFuture<long[]> releaseAsync(List<LockKeys> group, String owner, long[] restoreLeases, long[] tokens, long[] keeps) {
        return masters.<long[]>onEvery((node, index) -> node.releaseAsync(group, owner, restoreLeases, tokens, keeps))
                .thenApply(answers -> holdsLeft(group, owner, answers));
    }

    private long[] holdsLeft(List<LockKeys> group, String owner, List<long[]> answers) {
        long unanswered = answers.stream().filter(Objects::isNull).count();
        long[] left = new long[group.size()];
        for (int i = 0; i < group.size(); i++) {
            int lock = i;
            String redisKey = group.get(i).name();
            List<Long> counted = answers.stream().filter(answer -> answer != null && answer[lock] >= 0).map(answer -> answer[lock])
                    .sorted(Comparator.reverseOrder()).toList();
            if (counted.size() >= quorum) {
                left[i] = counted.get(quorum - 1);
            } else if (counted.size() + unanswered < quorum) {
                log.warn("Redlock release of " + redisKey + " by " + owner + ": only " + counted.size() + " of " + masters.size()
                        + " masters still had it (quorum " + quorum + ")");
                left[i] = -1;
            } else {
                throw new LockRedisException("Could not release " + redisKey + " on a majority of the Redlock masters (redis-lock.redlock.nodes): "
                        + counted.size() + " of " + masters.size() + " confirmed, " + unanswered + " did not answer within "
                        + masters.nodeTimeout().toMillis() + " ms; it frees itself when its lease ends", null);
            }
            if (left[i] <= 0) {
                renewal.forget(redisKey, owner);
            }
        }
        return left;
    }

    /** Whether a majority of the masters has the lock. */
    @Override
    public boolean exists(LockKeys keys) {
        return masters.onEveryBlocking(node -> node.exists(keys)).stream().filter(Boolean.TRUE::equals).count() >= quorum;
    }

    /** The hold count a majority of the masters agree on (at least). */
    @Override
    public int holdCount(LockKeys keys, String field) {
        List<Integer> counts = new ArrayList<>(masters.onEveryBlocking(node -> node.holdCount(keys, field)).stream()
                .map(count -> count == null ? 0 : count).toList());
        counts.sort(Comparator.reverseOrder());
        return counts.get(quorum - 1);
    }

    /** A lock stays while a majority renews it: see {@link RedlockRenewal}. */
    @Override
    public Set<WatchedLock> renew(List<WatchedLock> locks, long leaseMillis) {
        return send(locks, leaseMillis).lost();
    }

    /** Sends the round to every master; the answers are awaited (and counted) by {@link Sent#lost()}. */
    @Override
    public Sent send(List<WatchedLock> locks, long leaseMillis) {
        return renewal.send(locks, leaseMillis);
    }

    /** Lets the undos still running finish (up to the node timeout) before the masters' threads stop. */
    public void close() {
        List<CompletableFuture<Void>> undoing = pendingUndos.values().stream().flatMap(List::stream).toList();
        masters.answersBy(undoing, System.nanoTime() + masters.nodeTimeout().toNanos()).join();
        pendingUndos.clear();
        masters.close();
    }
}
