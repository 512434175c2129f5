package io.github.redislock.benchmarks.measure;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tiny critical section every contended worker runs while it believes it holds the lock. It
 * detects overlaps (two threads inside at once), and records who held the lock before, so hand-off
 * latency and same-thread re-acquisition come out of the same bookkeeping.
 *
 * <p>The detector does not trust the lock: the occupancy counter is atomic, so an overlap is seen
 * even when the lock under test is broken. The other fields are only consistent while it is not;
 * a run with violations is marked and its other figures are not to be read.
 */
public final class CriticalSection {

    private final AtomicInteger occupants = new AtomicInteger();
    private final AtomicLong violations = new AtomicLong();
    private final long[] acquisitions;
    private final LatencySamples[] handOffs;
    private volatile boolean measuring;
    private int lastHolder = -1;
    private long lastLeftNanos;
    private long sameThread;
    private long measuredTotal;
    private long unguardedCounter;
    private long entries;

    public CriticalSection(int workers) {
        this.acquisitions = new long[workers];
        this.handOffs = new LatencySamples[workers];
        for (int i = 0; i < workers; i++) {
            handOffs[i] = new LatencySamples();
        }
    }

    public void measuring(boolean on) {
        measuring = on;
    }

    /** Called right after {@code worker} acquired the lock. */
    public void enter(int worker) {
        long now = System.nanoTime();
        if (occupants.incrementAndGet() != 1) {
            violations.incrementAndGet();
        }
        int previous = lastHolder;
        if (measuring) {
            acquisitions[worker]++;
            measuredTotal++;
            if (previous == worker) {
                sameThread++;
            } else if (previous >= 0) {
                handOffs[worker].add(now - lastLeftNanos);
            }
        }
        // A plain read-modify-write: under a working lock no update is ever lost.
        unguardedCounter++;
        entries++;
    }

    /** Called right before {@code worker} releases the lock. */
    public void leave(int worker) {
        lastHolder = worker;
        lastLeftNanos = System.nanoTime();
        if (occupants.decrementAndGet() != 0) {
            violations.incrementAndGet();
        }
    }

    /** Overlaps seen; 0 for a correct lock. */
    public long violations() {
        return violations.get();
    }

    public long[] acquisitionsPerWorker() {
        return acquisitions.clone();
    }

    public long measuredAcquisitions() {
        return measuredTotal;
    }

    /** Share (0-1) of measured acquisitions where the thread that released the lock took it again. */
    public double sameThreadShare() {
        return measuredTotal == 0 ? Double.NaN : (double) sameThread / measuredTotal;
    }

    public long[] sortedHandOffNanos() {
        return LatencySamples.merge(java.util.List.of(handOffs));
    }

    /** Whether the plain counter lost updates, which only happens when threads overlapped. */
    public boolean lostUpdates() {
        return unguardedCounter != entries;
    }
}
