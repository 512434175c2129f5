package io.github.redislock.benchmarks.client;

import java.util.Collection;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.profile.CompilerProfiler;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code java -jar lock-benchmarks.jar --client-cost [iterations]}: runs {@link ClientCostBenchmark} with
 * JMH's GC profiler ({@code -prof gc}) and prints JMH's table (ns per pair, bytes allocated per pair as
 * {@code gc.alloc.rate.norm}) and the JIT's compiling time during the measured iterations
 * ({@code compiler.time.profiled}). No Redis is started. In this JVM (no fork): the benchmark jar is a Spring
 * Boot jar, whose nested classpath a forked JVM could not load; give the JVM a fixed heap
 * ({@code -Xms1g -Xmx1g}) for steadier figures.
 */
public final class ClientCostMain {

    private static final int WARMUP_ITERATIONS = 5;

    private ClientCostMain() {
    }

    public static void run(String[] args) throws RunnerException {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        measure(options(WARMUP_ITERATIONS, iterations, TimeValue.seconds(1)));
    }

    static Collection<RunResult> measure(Options options) throws RunnerException {
        System.setProperty("jmh.ignoreLock", "true"); // another JMH run on a shared machine must not stop this one
        return new Runner(options).run();
    }

    /**
     * With JMH's compiler profiler beside the GC profiler: {@code compiler.time.profiled} is the JIT's compiling time
     * during the measured iterations. Not 0, the bytes and times are partly those of code not yet compiled, which
     * escape analysis has not thinned: on 2026-11-27 at load 30, 5 warm-up seconds left lock+unlock at
     * 4,357 ± 433 B per pair, against 4,017 once compiled ({@code -Xbatch}).
     */
    static Options options(int warmupIterations, int iterations, TimeValue iterationTime) {
        return new OptionsBuilder()
                .include("^" + ClientCostBenchmark.class.getName().replace(".", "\\.") + "\\.")
                .forks(0)
                .threads(1)
                .warmupIterations(warmupIterations)
                .warmupTime(iterationTime)
                .measurementIterations(iterations)
                .measurementTime(iterationTime)
                .timeUnit(TimeUnit.NANOSECONDS)
                .addProfiler(GCProfiler.class)
                .addProfiler(CompilerProfiler.class)
                .build();
    }
}
