package io.github.redislock.benchmarks.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the same loop on N threads through a warm-up, a measured window and a stop. Each iteration
 * is told whether it started inside the measured window; only those count.
 */
final class TimedWorkers {

    /** How long stopping may take: a waiter still has to get its lock once after the window closed. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(60);

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
    private static final int STOPPED = 2;

    private TimedWorkers() {
    }

    static Outcome run(String name, int threads, Duration warmup, Duration measure, Iteration iteration,
                       Runnable atMeasureStart, Runnable atMeasureEnd) {
        return run(name, threads, warmup, measure, iteration, atMeasureStart, () -> { }, atMeasureEnd);
    }

    /** @param beforeStop runs as the window closes, while the workers still run (a per-thread reading needs them alive) */
    static Outcome run(String name, int threads, Duration warmup, Duration measure, Iteration iteration,
                       Runnable atMeasureStart, Runnable beforeStop, Runnable atMeasureEnd) {
        AtomicInteger phase = new AtomicInteger(WARMING);
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
                        int now = phase.get();
                        if (now == STOPPED || failure.get() != null) {
                            return;
                        }
                        iteration.run(worker, now == MEASURING);
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
        atMeasureStart.run();
        long start = System.nanoTime();
        phase.set(MEASURING);
        sleep(measure);
        beforeStop.run();
        phase.set(STOPPED);
        long measured = System.nanoTime() - start;
        atMeasureEnd.run();
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
