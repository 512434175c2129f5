package io.github.redislock.benchmarks.scenarios;

import java.time.Duration;
import java.util.function.IntFunction;

import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;

/**
 * Runs every implementation unmeasured before the first row, so the code they share (Lettuce,
 * Netty, Spring Data Redis) is compiled before anyone is measured: otherwise whoever runs first
 * pays for the JIT of everyone. Each runs its uncontended pair (own keys) for half the time, then its contended
 * path (every thread on one key: queueing, hand-offs, release messages, parking); with the
 * uncontended pair alone, the implementation measured first in the contended scenario got 2-3x
 * fewer acquisitions/s than the same code measured second.
 */
public final class JvmWarmUp {

    private static final int THREADS = 8;
    private static final String CONTENDED_KEY = "bench:warm-up:contended";

    private JvmWarmUp() {
    }

    public static void run(BenchmarkContext context) {
        for (LockImplementation implementation : context.implementations()) {
            context.log("JVM warm-up: " + implementation.displayName());
            try (LockClient client = implementation.connect(context.settings())) {
                warmUp(context, implementation, "", worker -> "bench:warm-up:" + worker, client);
                warmUp(context, implementation, "contended-", worker -> CONTENDED_KEY, client);
            } catch (RuntimeException e) {
                context.log("  warm-up failed: " + Runs.describe(e));
            }
        }
        context.redis().flushAll();
    }

    private static void warmUp(BenchmarkContext context, LockImplementation implementation, String kind, IntFunction<String> keyOf,
                               LockClient client) {
        TimedWorkers.Outcome outcome = TimedWorkers.run("warm-up-" + kind + implementation.id(), THREADS, Duration.ZERO,
                context.options().jvmWarmup().dividedBy(2), (worker, measuring) -> {
                    String key = keyOf.apply(worker);
                    client.lock(key);
                    client.unlock(key);
                }, () -> { }, () -> { });
        if (outcome.failure() != null) {
            context.log("  " + kind + "warm-up failed: " + Runs.describe(outcome.failure()));
        }
    }
}
