package io.github.redislock.core.script;

import io.github.redislock.core.renewal.PartialRenewalException;
import io.github.redislock.core.renewal.RenewalClient;
import io.github.redislock.core.renewal.WatchedLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
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
     * The most threads that wait for renewal replies without a shared native connection, for every Locker
     * of the JVM, apart from the lock calls' (see {@link ScriptTransport#BLOCKING_CALL_THREADS}), so that
     * neither starves the other. Past 4,096 queued batches a batch fails at once, as one whose node failed
     * (its locks are renewed on the next tick, two of which a lease outlives).
     */
    public static final int RENEWAL_THREADS = 16;
    private static final Executor WITHOUT_SHARED_CONNECTION = ScriptTransport.boundedThreads("redis-lock-renewal", RENEWAL_THREADS, 4096);

    private final ScriptTransport transport;

    LeaseRenewals(ScriptTransport transport) {
        this.transport = transport;
    }

    /** One script call on its way: a batch of locks of one hash slot; its reply lists the (1-based) positions of those found lost. */
    private record Batch(List<WatchedLock> locks, CompletableFuture<List<?>> reply) {
    }

    /**
     * Locks whose hash carries the lease cost one script call per batch; owners with a lease of their
     * own in a lease set (read-write locks) a second kind of call, made only when there are such holds.
     * Sends every batch and returns without waiting for a reply; the result waits for each batch up to a
     * third of {@code leaseMillis} from now (whatever the client's command timeout), so a batch whose node
     * fails or hangs does not keep the others, on healthy nodes, from being renewed in this tick.
     */
    RenewalClient.Sent send(List<WatchedLock> locks, long leaseMillis) {
        List<WatchedLock> byHash = locks.stream().filter(lock -> lock.leaseSet() == null).toList();
        List<WatchedLock> byLeaseSet = locks.stream().filter(lock -> lock.leaseSet() != null).toList();
        List<Batch> sent = new ArrayList<>();
        for (List<WatchedLock> batch : batches(byHash)) {
            sent.add(send(batch, LockScript.RENEW, lock -> new String[] {lock.redisKey()}, leaseMillis));
        }
        for (List<WatchedLock> batch : batches(byLeaseSet)) {
            sent.add(send(batch, LockScript.RENEW_LEASES, lock -> new String[] {lock.redisKey(), lock.leaseSet()}, leaseMillis));
        }
        Duration bound = Duration.ofMillis(Math.max(1, leaseMillis / 3));
        long deadline = System.nanoTime() + bound.toNanos();
        return () -> collectLost(sent, locks.size(), deadline, bound);
    }

    /** @param keysOf the KEYS of one lock, the same number for every lock of the batch */
    private Batch send(List<WatchedLock> batch, LockScript script, Function<WatchedLock, String[]> keysOf, long leaseMillis) {
        int keysPerLock = keysOf.apply(batch.get(0)).length;
        int keyCount = batch.size() * keysPerLock;
        byte[][] keysAndArgs = new byte[keyCount + 1 + batch.size()][];
        keysAndArgs[keyCount] = LockCommands.bytes(Long.toString(leaseMillis));
        for (int i = 0; i < batch.size(); i++) {
            String[] keys = keysOf.apply(batch.get(i));
            for (int k = 0; k < keysPerLock; k++) {
                keysAndArgs[i * keysPerLock + k] = LockCommands.bytes(keys[k]);
            }
            keysAndArgs[keyCount + 1 + i] = LockCommands.bytes(batch.get(i).ownerField());
        }
        return new Batch(batch, transport.runAsync(WITHOUT_SHARED_CONNECTION, batch.get(0).redisKey(), script, ReturnType.MULTI, keyCount, keysAndArgs));
    }

    /** @throws PartialRenewalException when some batches failed; it carries what the others found lost */
    private static Set<WatchedLock> collectLost(List<Batch> batches, int lockCount, long deadline, Duration bound) {
        Set<WatchedLock> lost = new HashSet<>();
        RuntimeException failure = null;
        int unrenewed = 0;
        for (Batch batch : batches) {
            try {
                for (Object position : awaitBounded(batch, deadline, bound)) {
                    lost.add(batch.locks.get(((Number) position).intValue() - 1));
                }
            } catch (RuntimeException e) {
                unrenewed += batch.locks.size();
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

    private static List<?> awaitBounded(Batch batch, long deadline, Duration bound) {
        String what = batch.locks.size() + " lock(s) from " + batch.locks.get(0).redisKey();
        try {
            return batch.reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("No reply within " + bound.toMillis() + " ms (a third of the watchdog timeout) renewing " + what, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted renewing " + what, e);
        }
    }

    /** One batch per hash slot in a cluster (a script may not cross slots), otherwise as few as the batch size allows. */
    private List<List<WatchedLock>> batches(List<WatchedLock> locks) {
        Function<WatchedLock, Integer> group = transport.isCluster() ? lock -> ClusterSlotHashUtil.calculateSlot(lock.redisKey()) : lock -> 0;
        Map<Integer, List<WatchedLock>> bySlot = new LinkedHashMap<>();
        for (WatchedLock lock : locks) {
            bySlot.computeIfAbsent(group.apply(lock), slot -> new ArrayList<>()).add(lock);
        }
        List<List<WatchedLock>> batches = new ArrayList<>();
        for (List<WatchedLock> slotLocks : bySlot.values()) {
            for (int from = 0; from < slotLocks.size(); from += MAX_RENEWAL_BATCH) {
                batches.add(slotLocks.subList(from, Math.min(slotLocks.size(), from + MAX_RENEWAL_BATCH)));
            }
        }
        return batches;
    }
}
