package io.github.redislock.core.script;

import io.github.redislock.core.renewal.PartialRenewalException;
import io.github.redislock.core.renewal.RenewalClient;
import io.github.redislock.core.renewal.WatchedLock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The watchdog's side of Redis: renews every watched lock of a tick in as few script calls as the batch
 * size and the hash slots allow, all sent at once, each bounded on its own.
 */
public final class LeaseRenewals {

    /** Most locks renewed by one script call; 1,000 held locks still cost one call per tick. */
    public static final int MAX_RENEWAL_BATCH = 1000;

    /**
     * The most threads that wait for renewal replies without a shared native connection, for every
     * Locker of the JVM. A healthy batch holds its thread for one round trip, so a few threads serve
     * thousands of batches per tick (one per hash slot on a cluster); only batches to a node that does
     * not answer keep theirs, until the client's command timeout. Unbounded, every tick started one more
     * thread per such batch while the earlier ones still waited.
     */
    public static final int RENEWAL_THREADS = 16;

    /**
     * The most batches that wait for a thread; past it a batch fails at once, as one whose node failed
     * (its locks are renewed on the next tick, two of which a lease outlives). 4,096 batches are up
     * to four million locks.
     */
    static final int QUEUED_BATCHES = 4096;

    /**
     * Where a batch waits for Redis when the connection factory shares no native Lettuce connection:
     * at most {@link #RENEWAL_THREADS}, none kept once idle, the other batches queued behind them.
     */
    private static final Executor WITHOUT_SHARED_CONNECTION = renewalThreads();

    private static ThreadPoolExecutor renewalThreads() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(RENEWAL_THREADS, RENEWAL_THREADS, 10, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(QUEUED_BATCHES), task -> {
                    Thread thread = new Thread(task, "redis-lock-renewal");
                    thread.setDaemon(true);
                    return thread;
                }, (batch, full) -> {
                    throw new RejectedExecutionException("Renewal skipped this tick: " + QUEUED_BATCHES + " renewal batches already wait for one of the "
                            + RENEWAL_THREADS + " renewal threads (Redis does not answer them)");
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    private final ScriptTransport transport;

    LeaseRenewals(ScriptTransport transport) {
        this.transport = transport;
    }

    /**
     * Locks whose hash carries the lease cost one script call per batch; owners with a lease of their
     * own in a lease set (read-write locks) a second kind of call, made only when there are such holds.
     *
     * <p>Every batch stands alone: all are sent at once, and a batch whose node fails or does not answer
     * within a third of {@code leaseMillis} (whatever the client's command timeout) does not keep the
     * others, on healthy nodes, from being renewed in this tick.
     *
     * @throws PartialRenewalException when some batches failed; it carries what the others found lost
     */
    Set<WatchedLock> renew(List<WatchedLock> locks, long leaseMillis) {
        return send(locks, leaseMillis).lost();
    }

    /**
     * Sends every batch of {@link #renew} and returns without waiting for a reply; the result waits for
     * them, each batch up to a third of {@code leaseMillis} from now.
     */
    RenewalClient.Sent send(List<WatchedLock> locks, long leaseMillis) {
        List<WatchedLock> byHash = new ArrayList<>();
        List<WatchedLock> byLeaseSet = new ArrayList<>();
        for (WatchedLock lock : locks) {
            (lock.leaseSet() == null ? byHash : byLeaseSet).add(lock);
        }
        List<RenewalCall> calls = new ArrayList<>();
        for (List<WatchedLock> batch : batches(byHash)) {
            calls.add(new RenewalCall(batch, LockScript.RENEW, 1, lock -> new String[] {lock.redisKey()}, leaseMillis));
        }
        for (List<WatchedLock> batch : batches(byLeaseSet)) {
            calls.add(new RenewalCall(batch, LockScript.RENEW_LEASES, 2, lock -> new String[] {lock.redisKey(), lock.leaseSet()}, leaseMillis));
        }
        Duration bound = Duration.ofMillis(Math.max(1, leaseMillis / 3));
        long deadline = System.nanoTime() + bound.toNanos();
        return () -> collectLost(calls, locks.size(), deadline, bound);
    }

    private static Set<WatchedLock> collectLost(List<RenewalCall> calls, int lockCount, long deadline, Duration bound) {
        Set<WatchedLock> lost = new HashSet<>();
        RuntimeException failure = null;
        int unrenewed = 0;
        for (RenewalCall call : calls) {
            try {
                call.collectLost(deadline, bound, lost);
            } catch (RuntimeException e) {
                unrenewed += call.batch.size();
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            String which = unrenewed == lockCount ? "None of the " + lockCount + " lock(s) could be renewed: "
                    : unrenewed + " of " + lockCount + " lock(s) could not be renewed (the others were): ";
            throw new PartialRenewalException(which + failure.getMessage(), failure, lost);
        }
        return lost;
    }

    /**
     * One renewal script call, sent when created and awaited by {@link #collectLost}: on Lettuce's
     * shared connection without a thread; without one (a pool, Jedis) on a thread of
     * {@link #WITHOUT_SHARED_CONNECTION}, so that every batch is on its way when {@link #send} returns
     * and one that waits for a hanging node holds up neither the others (while threads are free) nor the
     * watchdog's unwatch.
     */
    private final class RenewalCall {
        final List<WatchedLock> batch;
        private final CompletableFuture<List<?>> reply;

        RenewalCall(List<WatchedLock> batch, LockScript script, int keysPerLock, Function<WatchedLock, String[]> keysOf, long leaseMillis) {
            this.batch = batch;
            byte[][] keysAndArgs = renewalKeysAndArgs(batch, keysPerLock, keysOf, leaseMillis);
            CompletableFuture<List<?>> sent;
            try {
                sent = transport.runAsync(WITHOUT_SHARED_CONNECTION, redisKey(), script, ReturnType.MULTI, batch.size() * keysPerLock, keysAndArgs);
            } catch (RuntimeException e) {
                sent = CompletableFuture.failedFuture(e); // this batch alone failed: the others are still sent
            }
            this.reply = sent;
        }

        String redisKey() {
            return batch.get(0).redisKey();
        }

        void collectLost(long deadline, Duration bound, Set<WatchedLock> lost) {
            for (Object position : awaitBounded(deadline, bound)) {
                lost.add(batch.get(((Number) position).intValue() - 1));
            }
        }

        private List<?> awaitBounded(long deadline, Duration bound) {
            try {
                return reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("No reply within " + bound.toMillis() + " ms (a third of the watchdog timeout) renewing "
                        + batch.size() + " lock(s) from " + redisKey(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted renewing " + batch.size() + " lock(s) from " + redisKey(), e);
            }
        }
    }

    private static byte[][] renewalKeysAndArgs(List<WatchedLock> batch, int keysPerLock, Function<WatchedLock, String[]> keysOf,
                                               long leaseMillis) {
        int keyCount = batch.size() * keysPerLock;
        byte[][] keysAndArgs = new byte[keyCount + 1 + batch.size()][];
        keysAndArgs[keyCount] = bytes(Long.toString(leaseMillis));
        for (int i = 0; i < batch.size(); i++) {
            String[] keys = keysOf.apply(batch.get(i));
            for (int k = 0; k < keysPerLock; k++) {
                keysAndArgs[i * keysPerLock + k] = bytes(keys[k]);
            }
            keysAndArgs[keyCount + 1 + i] = bytes(batch.get(i).ownerField());
        }
        return keysAndArgs;
    }

    /** One batch per hash slot in a cluster (a script may not cross slots), otherwise as few as the batch size allows. */
    private List<List<WatchedLock>> batches(List<WatchedLock> locks) {
        Function<WatchedLock, Integer> group = transport.isCluster() ? lock -> ClusterSlotHashUtil.calculateSlot(lock.redisKey()) : lock -> 0;
        Map<Integer, List<WatchedLock>> bySlot = new LinkedHashMap<>();
        for (WatchedLock lock : locks) {
            bySlot.computeIfAbsent(group.apply(lock), slot -> new ArrayList<>()).add(lock);
        }
        List<List<WatchedLock>> batches = new ArrayList<>();
        for (Collection<WatchedLock> slotLocks : bySlot.values()) {
            List<WatchedLock> list = new ArrayList<>(slotLocks);
            for (int from = 0; from < list.size(); from += MAX_RENEWAL_BATCH) {
                batches.add(list.subList(from, Math.min(list.size(), from + MAX_RENEWAL_BATCH)));
            }
        }
        return batches;
    }

    private static byte[] bytes(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}
