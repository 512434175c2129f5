package io.github.redislock.core.redlock;

import io.github.redislock.core.renewal.RenewalClient;
import io.github.redislock.core.renewal.WatchedLock;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The watchdog's renewal for Redlock: a lock stays while a majority of the masters renews it. A round
 * too few masters answer in time proves nothing (a pause, a slow network): the lock is kept and renewed
 * on the next tick, and reported lost only when no majority can still have it, or when its validity
 * since the last round a majority confirmed has run out.
 */
public final class RedlockRenewal {

    private static final Log log = LogFactory.getLog(RedlockRenewal.class);

    private final RedlockMasters masters;
    /** Per lock and owner ({@link #id}), not per hold (the acquisition confirms before the hold exists), when the last confirmed round began. */
    private final Map<String, Long> confirmedAt = new ConcurrentHashMap<>();

    public RedlockRenewal(RedlockMasters masters) {
        this.masters = masters;
    }

    /** The clock drift the algorithm allows for over {@code leaseMillis}: 1% of it plus 2 ms. */
    public static long drift(long leaseMillis) {
        return leaseMillis / 100 + 2;
    }

    static String id(String redisKey, String owner) {
        return redisKey + " " + owner;
    }

    /** A majority took or renewed the lock in a round that started at {@code roundStartNanos}: its validity runs from then. */
    void confirmed(String redisKey, String owner, long roundStartNanos) {
        confirmedAt.put(id(redisKey, owner), roundStartNanos);
    }

    /** The owner holds the lock no more (released, or found lost). */
    void forget(String redisKey, String owner) {
        confirmedAt.remove(id(redisKey, owner));
    }

    /** Sends the round to every master without waiting; the result waits for each answer up to the node timeout. */
    RenewalClient.Sent send(List<WatchedLock> locks, long leaseMillis) {
        long roundStart = System.nanoTime();
        List<CompletableFuture<RenewalClient.Sent>> sent = new ArrayList<>(masters.size());
        for (int i = 0; i < masters.size(); i++) {
            sent.add(masters.send(i, (node, index) -> CompletableFuture.completedFuture(node.send(locks, leaseMillis))));
        }
        return () -> lost(locks, leaseMillis, roundStart,
                masters.onEvery((node, index) -> sent.get(index).thenApplyAsync(RenewalClient.Sent::lost, masters.thread(index))).join());
    }

    /**
     * @param notRenewed per master, the locks it no longer has; null for a master that failed or did not answer in time
     * @return the locks to report lost
     */
    private Set<WatchedLock> lost(List<WatchedLock> locks, long leaseMillis, long roundStart, List<Set<WatchedLock>> notRenewed) {
        long unanswered = notRenewed.stream().filter(Objects::isNull).count();
        long validityNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis - drift(leaseMillis));
        int quorum = masters.quorum();
        Set<WatchedLock> lost = new HashSet<>();
        int undecided = 0;
        long soonestEndNanos = Long.MAX_VALUE;
        for (WatchedLock lock : locks) {
            long renewed = notRenewed.stream().filter(missing -> missing != null && !missing.contains(lock)).count();
            if (renewed >= quorum) {
                confirmed(lock.redisKey(), lock.ownerField(), roundStart);
                continue;
            }
            Long confirmed = confirmedAt.get(id(lock.redisKey(), lock.ownerField()));
            boolean goneOnAMajority = renewed + unanswered < quorum;
            long leftNanos = confirmed == null ? 0 : validityNanos - (System.nanoTime() - confirmed);
            if (goneOnAMajority || leftNanos <= 0) {
                lost.add(lock);
                forget(lock.redisKey(), lock.ownerField());
            } else {
                undecided++;
                soonestEndNanos = Math.min(soonestEndNanos, leftNanos);
            }
        }
        if (undecided > 0) {
            log.warn("Redlock renewal of " + undecided + " lock(s) did not reach a majority in time: " + unanswered + " of " + masters.size()
                    + " masters did not answer within " + masters.nodeTimeout().toMillis() + " ms. Kept while still valid (the first validity ends in "
                    + TimeUnit.NANOSECONDS.toMillis(soonestEndNanos) + " ms); retried on the next tick");
        }
        return lost;
    }
}
