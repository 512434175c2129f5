package io.github.redislock.core.redlock;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.renewal.DaemonThreads;
import io.github.redislock.core.renewal.RenewalClient;
import io.github.redislock.core.renewal.WatchedLock;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.ScriptTransport;
import io.github.redislock.core.script.ShardedChannels;
import io.github.redislock.core.wait.OwnerTurns;

import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.IntStream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The script calls of a {@code RedlockLocker} on a quorum of independent masters, made as the shared
 * holds, releases and watchdog make them on one Redis. An acquisition holds when a majority took it
 * while the lease has time left (validity = lease - elapsed - clock drift); a failed round is undone.
 * A renewal round too few masters answer in time proves nothing: the lock is reported lost only when
 * no majority can still have it, or its validity since the last confirmed round has run out.
 *
 * <p>Every call goes to all masters at once; one that fails or misses the node timeout counts as no
 * answer. A blocking call runs on its master's one thread, so a hung master ties up one thread only.
 */
public final class RedlockQuorum extends LockCommands {

    private static final Log log = LogFactory.getLog(RedlockQuorum.class);

    private final List<LockCommands> nodes;
    private final List<String> names;
    private final Duration nodeTimeout;
    private final List<ExecutorService> threads;
    private final int quorum;
    /** Per lock and owner ({@link #id}; the acquisition confirms before the hold exists), when the last confirmed round began. */
    private final Map<String, Long> confirmedAt = new ConcurrentHashMap<>();
    /** Per owner of a key ({@link #id}), the undos of its failed round still running, one future per master. */
    private final Map<String, List<CompletableFuture<Void>>> pendingUndos = new ConcurrentHashMap<>();

    /** Connects to every master in the background: the first attempt should not spend its node timeout connecting. */
    public RedlockQuorum(List<RedisConnectionFactory> nodes, List<String> names, Duration nodeTimeout, Duration watchdogTimeout, String keyPrefix) {
        super(null, null, null, null, false); // no Redis of its own: it sends the calls it overrides to the masters, any other call fails
        if (nodes.size() < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent Redis masters, but got " + nodes.size());
        }
        this.nodes = nodes.stream().map(node -> new LockCommands(node, watchdogTimeout, null, new ShardedChannels(node), false)).toList();
        this.names = List.copyOf(names);
        this.nodeTimeout = nodeTimeout;
        this.quorum = nodes.size() / 2 + 1;
        this.threads = this.names.stream().map(name -> Executors.newSingleThreadExecutor(DaemonThreads.named("redis-lock-redlock " + name))).toList();
        onEveryThread(node -> node.exists(LockKeys.of(keyPrefix, "__connect")));
        if (nodes.size() % 2 == 0) {
            log.warn("Redlock over an even number of masters (" + nodes.size() + ") tolerates no more failures than "
                    + (nodes.size() - 1) + " would; an odd count is recommended");
        }
    }

    public int quorum() {
        return quorum;
    }

    /**
     * One round on a single plain lock; never fails (a master that fails said no). A master still undoing
     * this owner's previous round ({@link #undo}) is not asked: that undo could delete this round's acquire.
     *
     * @param undoLease the lease a master that granted it keeps when the round fails: 0 for a first hold, else the hold's own
     */
    public CompletableFuture<Acquisition> acquire(LockKeys keys, String owner, long leaseMillis, boolean firstHold, long undoLease) {
        long start = System.nanoTime();
        String id = id(keys.name(), owner);
        List<CompletableFuture<Void>> undoing = pendingUndos.get(id);
        List<CompletableFuture<Acquisition>> calls = IntStream.range(0, nodes.size()).mapToObj(i -> undoing != null && !undoing.get(i).isDone()
                ? CompletableFuture.<Acquisition>completedFuture(null)
                : ScriptTransport.started(() -> nodes.get(i).acquireAsync(List.of(keys), owner, leaseMillis, new boolean[] {firstHold}, 0, null, false, false, false))).toList();
        return answersBy(calls, start + nodeTimeout.toNanos()).thenCompose(answers -> {
            long validity = leaseMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) - drift(leaseMillis);
            List<Acquisition> took = answers.stream().filter(answer -> answer != null && answer.acquired()).toList();
            if (took.size() >= quorum && validity > 0) {
                confirmedAt.put(id, start);
                long holdCount = took.stream().mapToLong(answer -> answer.holdCounts()[0]).max().orElseThrow();
                return CompletableFuture.completedFuture(new Acquisition(true, new long[] {holdCount}, new long[1], -1, 0));
            }
            List<CompletableFuture<Void>> undos = undo(id, keys, owner, firstHold, undoLease, calls, undoing);
            log.debug("Redlock attempt on " + keys.name() + " reached " + took.size() + " of " + nodes.size()
                    + " masters (quorum " + quorum + "), validity " + validity + " ms; undone");
            // The round ends once the masters that answered in time have undone it (a late one's undo runs on).
            List<CompletableFuture<Void>> undoneInTime = IntStream.range(0, undos.size())
                    .mapToObj(i -> answers.get(i) != null ? undos.get(i) : OwnerTurns.NOW).toList();
            return answersBy(undoneInTime, System.nanoTime() + nodeTimeout.toNanos())
                    .thenApply(undone -> new Acquisition(false, new long[0], new long[0], 0, -1));
        });
    }

    /**
     * Gives back what a failed round took, on each master once its answer is in, even a late one: an undo
     * never races its acquire. A first hold whose reply was lost is given back too (that count is nobody's).
     *
     * @param undoing the undos of the owner's earlier round, still running on the masters this round left out
     */
    private List<CompletableFuture<Void>> undo(String id, LockKeys keys, String owner, boolean firstHold, long undoLease,
                                               List<CompletableFuture<Acquisition>> calls, List<CompletableFuture<Void>> undoing) {
        List<CompletableFuture<Void>> undos = IntStream.range(0, calls.size()).<CompletableFuture<Void>>mapToObj(i -> {
            CompletableFuture<Void> undo = calls.get(i)
                    .handle((answer, failure) -> answer != null && answer.acquired() || failure != null && firstHold)
                    .thenCompose(took -> !took ? OwnerTurns.NOW
                            : ScriptTransport.started(() -> nodes.get(i).releaseAsync(List.of(keys), owner, new long[] {undoLease}, new long[1], null, false))
                            .handle((left, failure) -> {
                                if (failure != null) {
                                    log.debug("Redlock master " + names.get(i) + " could not undo " + keys.name()
                                            + "; it expires with its lease: " + failure);
                                }
                                return null;
                            }));
            return undoing == null ? undo : undo.thenCombine(undoing.get(i), (mine, earlier) -> null);
        }).toList();
        pendingUndos.put(id, undos);
        CompletableFuture.allOf(undos.toArray(CompletableFuture[]::new)).thenRun(() -> pendingUndos.remove(id, undos));
        return undos;
    }

    /**
     * @return per lock, the holds a majority still counts, or -1 when no majority can have it (lost);
     *         fails with {@link LockRedisException} when too few answered to tell
     */
    @Override
    public CompletableFuture<long[]> releaseAsync(List<LockKeys> group, String owner, long[] restoreLeases, long[] tokens, long[] keeps, boolean takenUncontended) {
        return this.<long[]>onEvery((node, index) -> node.releaseAsync(group, owner, restoreLeases, tokens, keeps, takenUncontended)).thenApply(answers -> {
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
                    log.warn("Redlock release of " + redisKey + " by " + owner + ": only " + counted.size() + " of " + nodes.size()
                            + " masters still had it (quorum " + quorum + ")");
                    left[i] = -1;
                } else {
                    throw new LockRedisException("Could not release " + redisKey + " on a majority of the Redlock masters (redis-lock.redlock.nodes): "
                            + counted.size() + " of " + nodes.size() + " confirmed, " + unanswered + " did not answer within "
                            + nodeTimeout.toMillis() + " ms; it frees itself when its lease ends", null);
                }
                if (left[i] <= 0) {
                    confirmedAt.remove(id(redisKey, owner));
                }
            }
            return left;
        });
    }

    @Override // no token: each master would draw its own (see RedlockLocker)
    public CompletableFuture<Long> tokenAsync(LockKeys keys, String owner) { return CompletableFuture.completedFuture(0L); }

    @Override
    public boolean exists(LockKeys keys) {
        return onEveryThread(node -> node.exists(keys)).join().stream().filter(Boolean.TRUE::equals).count() >= quorum;
    }

    /** The hold count a majority of the masters agree on (at least). */
    @Override
    public int holdCount(LockKeys keys, String field) {
        return onEveryThread(node -> node.holdCount(keys, field)).join().stream().map(count -> count == null ? 0 : count)
                .sorted(Comparator.reverseOrder()).toList().get(quorum - 1);
    }

    @Override
    public Sent send(List<WatchedLock> locks, long leaseMillis) {
        long roundStart = System.nanoTime();
        List<CompletableFuture<RenewalClient.Sent>> sent = IntStream.range(0, nodes.size())
                .mapToObj(i -> ScriptTransport.started(() -> CompletableFuture.completedFuture(nodes.get(i).send(locks, leaseMillis)))).toList();
        return () -> lost(locks, leaseMillis, roundStart,
                onEvery((node, index) -> sent.get(index).thenApplyAsync(RenewalClient.Sent::lost, threads.get(index))).join());
    }

    private static long drift(long leaseMillis) {
        return leaseMillis / 100 + 2;
    }

    private static String id(String redisKey, String owner) {
        return redisKey + " " + owner;
    }

    /** The locks to report lost, given per master the locks it no longer has (null for a master that failed or was late). */
    private Set<WatchedLock> lost(List<WatchedLock> locks, long leaseMillis, long roundStart, List<Set<WatchedLock>> notRenewed) {
        long unanswered = notRenewed.stream().filter(Objects::isNull).count();
        long validityNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis - drift(leaseMillis));
        Set<WatchedLock> lost = new HashSet<>();
        int undecided = 0;
        long soonestEndNanos = Long.MAX_VALUE;
        for (WatchedLock lock : locks) {
            long renewed = notRenewed.stream().filter(missing -> missing != null && !missing.contains(lock)).count();
            if (renewed >= quorum) {
                confirmedAt.put(id(lock.redisKey(), lock.ownerField()), roundStart);
                continue;
            }
            Long confirmed = confirmedAt.get(id(lock.redisKey(), lock.ownerField()));
            long leftNanos = confirmed == null ? 0 : validityNanos - (System.nanoTime() - confirmed);
            if (renewed + unanswered < quorum || leftNanos <= 0) { // gone on a majority, or no longer valid
                lost.add(lock);
                confirmedAt.remove(id(lock.redisKey(), lock.ownerField()));
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

    /** Gives the undos still running a node timeout; they are several rounds' (one future per master each), and never fail. */
    public void close() {
        CompletableFuture.allOf(pendingUndos.values().stream().flatMap(List::stream).toArray(CompletableFuture[]::new))
                .completeOnTimeout(null, nodeTimeout.toNanos(), TimeUnit.NANOSECONDS).join();
        pendingUndos.clear();
        threads.forEach(ExecutorService::shutdownNow);
    }

    private <T> CompletableFuture<List<T>> onEvery(BiFunction<LockCommands, Integer, CompletableFuture<T>> command) {
        List<CompletableFuture<T>> calls = IntStream.range(0, nodes.size()).mapToObj(i -> ScriptTransport.started(() -> command.apply(nodes.get(i), i))).toList();
        return answersBy(calls, System.nanoTime() + nodeTimeout.toNanos());
    }

    private <T> CompletableFuture<List<T>> onEveryThread(Function<LockCommands, T> command) {
        long deadline = System.nanoTime() + nodeTimeout.toNanos();
        return onEvery((node, index) -> CompletableFuture.supplyAsync(() -> deadline - System.nanoTime() > 0 ? command.apply(node) : null,
                threads.get(index)));
    }

    /** The answers in by the deadline, null for a master that failed or is late; the calls go on (an undo acts on a late answer). */
    private <T> CompletableFuture<List<T>> answersBy(List<CompletableFuture<T>> calls, long deadlineNanos) {
        List<CompletableFuture<T>> bounded = IntStream.range(0, calls.size()).mapToObj(i -> calls.get(i).copy().exceptionally(failure -> {
            log.debug("Redlock master " + names.get(i) + " did not answer: " + failure);
            return null;
        }).completeOnTimeout(null, Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)).toList();
        return CompletableFuture.allOf(bounded.toArray(CompletableFuture[]::new))
                .thenApply(all -> bounded.stream().map(CompletableFuture::join).toList());
    }
}
