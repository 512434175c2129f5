package io.github.redislock.benchmarks.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs the same loop on N threads through a warm-up, a measured window and a stop. Each iteration
 * is told whether it started inside the measured window; only those count.
 */
final class TimedWorkers {

    /** How long stopping may take: a waiter still has to get its lock once after the window closed. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(60);
    /** How often the window's edge looks whether every worker is at rest. */
    private static final long REST_POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    @FunctionalInterface
    interface Iteration {
        void run(int worker, boolean measuring) throws Exception;
    }

    /**
     * @param measuredNanos actual length of the measured window
     * @param failure       the first exception a worker threw, or null
     * @param stuck         workers still running {@link #STOP_GRACE} after the stop
     */
    record Outcome(long measuredNanos, Throwable failure, int stuck) {

        double perSecond(long count) {
            return count * 1e9 / measuredNanos;
        }
    }

    private static final int WARMING = 0;
    private static final int MEASURING = 1;
    private static final int RESTING = 2;
    private static final int STOPPED = 3;

    private TimedWorkers() {
    }

    /**
     * The hooks run as the window opens and closes while the workers keep going: for a reading that needs no
     * alignment with the iterations (a share of a core), or where waiting for every iteration in flight would let
     * the queued ones through outside the window (one contended key).
     */
    static Outcome run(String name, int threads, Duration warmup, Duration measure, Iteration iteration,
                       Runnable atMeasureStart, Runnable atMeasureEnd) {
        return run(name, threads, warmup, measure, iteration, false, atMeasureStart, atMeasureEnd);
    }

    /**
     * The hooks run while every worker rests between two iterations: none is in flight while they read, so what
     * grew between the two readings (Redis commands, Redis and client CPU) is the work of exactly the iterations
     * that started in the window, the count a figure per iteration divides by. Read while the workers kept going,
     * the iterations completed during the opening readings were in the growth but not in the count: an
     * uncontended pair of exactly 6 commands read 6.04 at T=1 and 6.14 at T=8. The rests add no time to the
     * window, and the iterations counted and timed are the same as with {@link #run}.
     */
    static Outcome runReadingAtRest(String name, int threads, Duration warmup, Duration measure, Iteration iteration,
                                    Runnable atMeasureStart, Runnable atMeasureEnd) {
        return run(name, threads, warmup, measure, iteration, true, atMeasureStart, atMeasureEnd);
    }

    private static Outcome run(String name, int threads, Duration warmup, Duration measure, Iteration iteration, boolean readAtRest,
                               Runnable atMeasureStart, Runnable atMeasureEnd) {
        AtomicInteger phase = new AtomicInteger(WARMING);
        AtomicInteger inIteration = new AtomicInteger();
        Object restEnded = new Object();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int worker = i;
            Thread thread = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    while (true) {
                        // Counted before the phase is read, so an edge that sees none in an iteration after it set
                        // RESTING knows every worker will read RESTING before its next one.
                        inIteration.incrementAndGet();
                        int now;
                        try {
                            now = phase.get();
                            if (now == STOPPED || failure.get() != null) {
                                return;
                            }
                            if (now != RESTING) {
                                iteration.run(worker, now == MEASURING);
                            }
                        } finally {
                            inIteration.decrementAndGet();
                        }
                        if (now == RESTING) {
                            synchronized (restEnded) {
                                while (phase.get() == RESTING) {
                                    restEnded.wait();
                                }
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, name + "-" + i);
            thread.setDaemon(true);
            workers.add(thread);
            thread.start();
        }
        awaitUninterruptibly(ready);
        go.countDown();
        sleep(warmup);
        if (readAtRest) {
            phase.set(RESTING);
            awaitRest(inIteration);
        }
        atMeasureStart.run();
        long start = System.nanoTime();
        enter(phase, MEASURING, restEnded);
        sleep(measure);
        phase.set(readAtRest ? RESTING : STOPPED);
        long measured = System.nanoTime() - start;
        if (readAtRest) {
            awaitRest(inIteration);
        }
        atMeasureEnd.run();
        enter(phase, STOPPED, restEnded);
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        int stuck = 0;
        for (Thread worker : workers) {
            try {
                worker.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (worker.isAlive()) {
                stuck++;
                worker.interrupt();
            }
        }
        return new Outcome(measured, failure.get(), stuck);
    }

    /** Until no worker is in an iteration; one stuck in it for {@link #STOP_GRACE} is left to the stop to report. */
    private static void awaitRest(AtomicInteger inIteration) {
        long deadline = System.nanoTime() + STOP_GRACE.toNanos();
        while (inIteration.get() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(REST_POLL_NANOS);
        }
    }

    private static void enter(AtomicInteger phase, int next, Object restEnded) {
        synchronized (restEnded) {
            phase.set(next);
            restEnded.notifyAll();
        }
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Benchmark interrupted", e);
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Benchmark interrupted", e);
        }
    }
}
