package io.github.redislock.benchmarks.scenarios;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.IntFunction;

import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;

/**
 * Runs every implementation unmeasured before the first row, so the code they share (Lettuce,
 * Netty, Spring Data Redis) is compiled before anyone is measured: otherwise whoever runs first
 * pays for the JIT of everyone. Each runs its uncontended pair (own keys) for half the time, one thread then
 * eight, then its contended path (every thread on one key: queueing, hand-offs, release messages, parking); with the
 * uncontended pair alone, the implementation measured first in the contended scenario got 2-3x
 * fewer acquisitions/s than the same code measured second. The round is run again, up to {@link #MAX_ROUNDS}
 * times (once for a warm-up under a second), while the JIT still compiled for more than {@link #QUIET_JIT_SHARE}
 * of its time: on 2 busy cores the compile queue of the JVM's start-up kept this project's own lock path
 * uncompiled through a whole 3 s round, so redis-lock, measured first, ran its first rows in code still being
 * compiled, the compiler busy beside it (issue 33). Its clients' watchdog ticks within the warm-up ({@link #TICKING_WATCHDOG}).
 */
public final class JvmWarmUp {

    private static final int THREADS = 8;
    private static final String CONTENDED_KEY = "bench:warm-up:contended";
    static final int MAX_ROUNDS = 4;
    static final double QUIET_JIT_SHARE = 0.05;
    /**
     * The watchdog timeout of the warm-up's clients, short so that a watchdog renews beside the unlocks here: the
     * first tick to shut redis-lock's renewal gate on an unlock deoptimised its compiled unlock path, and with the
     * rows' 30 s watchdog (a tick every 10 s) that first tick fell into a measured row.
     */
    static final Duration TICKING_WATCHDOG = Duration.ofMillis(1500);

    private JvmWarmUp() {
    }

    public static void run(BenchmarkContext context) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        LockImplementation.ClientSettings rows = context.settings();
        LockImplementation.ClientSettings ticking = new LockImplementation.ClientSettings(rows.host(), rows.port(), TICKING_WATCHDOG, rows.lease());
        int rounds = context.options().jvmWarmup().toMillis() < 1000 ? 1 : MAX_ROUNDS; // a smoke run's (--quick): its figures are not for reading
        for (int round = 1; round <= rounds; round++) {
            long jitMillis = jit.getTotalCompilationTime();
            long startNanos = System.nanoTime();
            for (LockImplementation implementation : context.implementations()) {
                context.log((round == 1 ? "JVM warm-up: " : "JVM warm-up, round " + round + ": ") + implementation.displayName());
                try (LockClient client = implementation.connect(ticking)) {
                    Duration quarter = context.options().jvmWarmup().dividedBy(4);
                    warmUp(context, implementation, "", 1, quarter, worker -> "bench:warm-up:" + worker, client);
                    warmUp(context, implementation, "", THREADS, quarter, worker -> "bench:warm-up:" + worker, client);
                    warmUp(context, implementation, "contended-", THREADS, quarter.multipliedBy(2), worker -> CONTENDED_KEY, client);
                } catch (RuntimeException e) {
                    context.log("  warm-up failed: " + Runs.describe(e));
                }
            }
            double jitShare = (jit.getTotalCompilationTime() - jitMillis) / Math.max(1.0, (System.nanoTime() - startNanos) / 1e6);
            context.log(String.format("  the JIT compiled for %.0f%% of warm-up round %d", 100 * jitShare, round));
            if (jitShare <= QUIET_JIT_SHARE) {
                break;
            }
        }
        context.redis().flushAll();
    }

    private static void warmUp(BenchmarkContext context, LockImplementation implementation, String kind, int threads, Duration time,
                               IntFunction<String> keyOf, LockClient client) {
        TimedWorkers.Outcome outcome = TimedWorkers.run("warm-up-" + kind + implementation.id(), threads, Duration.ZERO, time, (worker, measuring) -> {
                    String key = keyOf.apply(worker);
                    client.lock(key);
                    client.unlock(key);
                }, () -> { }, () -> { });
        if (outcome.failure() != null) {
            context.log("  " + kind + "warm-up failed: " + Runs.describe(outcome.failure()));
        }
    }
}
