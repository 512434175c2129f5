package io.github.redislock.benchmarks.scenarios;

import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;

/**
 * Runs every implementation unmeasured before the first row, so the code they share (Lettuce,
 * Netty, Spring Data Redis) is compiled before anyone is measured: otherwise whoever runs first
 * pays for the JIT of everyone.
 */
public final class JvmWarmUp {

    private static final int THREADS = 8;

    private JvmWarmUp() {
    }

    public static void run(BenchmarkContext context) {
        for (LockImplementation implementation : context.implementations()) {
            context.log("JVM warm-up: " + implementation.displayName());
            try (LockClient client = implementation.connect(context.settings())) {
                TimedWorkers.Outcome outcome = TimedWorkers.run("warm-up-" + implementation.id(), THREADS, java.time.Duration.ZERO,
                        context.options().jvmWarmup(), (worker, measuring) -> {
                            String key = "bench:warm-up:" + worker;
                            client.lock(key);
                            client.unlock(key);
                        }, () -> { }, () -> { });
                if (outcome.failure() != null) {
                    context.log("  warm-up failed: " + Runs.describe(outcome.failure()));
                }
            } catch (RuntimeException e) {
                context.log("  warm-up failed: " + Runs.describe(e));
            }
        }
        context.redis().flushAll();
    }
}
