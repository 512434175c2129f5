package io.github.redislock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs contention tests: every task on its own thread, released at once by a latch. */
final class Together {

    private Together() {
    }

    /** Runs every task at the same moment and waits up to a minute for all; the first failure is rethrown. */
    static void run(List<Callable<?>> tasks) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        List<Future<?>> running = new ArrayList<>();
        for (Callable<?> task : tasks) {
            running.add(pool.submit(() -> {
                start.await();
                return task.call();
            }));
        }
        start.countDown();
        try {
            for (Future<?> each : running) {
                each.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
