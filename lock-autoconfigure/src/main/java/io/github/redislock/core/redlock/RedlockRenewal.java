package io.github.redislock.core.redlock;

import io.github.redislock.core.renewal.WatchedLock;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;


import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The watchdog's renewal for Redlock: a lock stays while a majority of the masters renews it. A round in
 * which too few masters answer in time (a pause of this JVM, a slow network) proves nothing: the lock is
 * kept and renewed again on the next tick, and reported lost only when masters enough to leave no
 * majority said they no longer have it, or when its validity since the last round a majority confirmed
 * has run out (lease - clock drift).
 */
public final class RedlockRenewal {

    private static final Log log = LogFactory.getLog(RedlockRenewal.class);

    private final RedlockMasters masters;
    /** When the last majority confirmation of each watched lock was asked for (System.nanoTime()): its validity runs from there. */
    private final Map<WatchedLock, Long> confirmedAt = new ConcurrentHashMap<>();

    public RedlockRenewal(RedlockMasters masters) {
        this.masters = masters;
    }

    /** The clock drift the algorithm allows for over {@code leaseMillis}: 1% of it plus 2 ms. */
    public static long drift(long leaseMillis) {
        return leaseMillis / 100 + 2;
    }

    /** A lock a majority took in an attempt that started at {@code attemptStartNanos}: its validity runs from then. */
    public void confirmed(WatchedLock lock, long attemptStartNanos) {
        confirmedAt.put(lock, attemptStartNanos);
    }

    /** Call after the lock is no longer watched: a renewal in flight may still confirm it. */
    public void forget(WatchedLock lock) {
        confirmedAt.remove(lock);
    }

    public void clear() {
        confirmedAt.clear();
    }

    /** @return the locks to report lost */
    public Set<WatchedLock> renew(List<WatchedLock> locks, long leaseMillis) {
        long roundStart = System.nanoTime();
        List<Set<WatchedLock>> notRenewed = masters.onEvery(node -> node.renew(locks, leaseMillis));
        long unanswered = notRenewed.stream().filter(Objects::isNull).count();
        long validityNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis - drift(leaseMillis));
        int quorum = masters.quorum();
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
            log.warn("Redlock renewal of " + undecided + " lock(s) did not reach a majority in time: " + unanswered + " of " + masters.size()
                    + " masters did not answer within " + masters.nodeTimeout().toMillis() + " ms. Kept while still valid (the first validity ends in "
                    + TimeUnit.NANOSECONDS.toMillis(soonestEndNanos) + " ms); retried on the next tick");
        }
        return lost;
    }
}
