package io.github.redislock.benchmarks.client;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@code java -jar lock-benchmarks.jar --client-cost [iterations]}: runs {@link ClientCostBenchmark} with
 * JMH's GC profiler ({@code -prof gc}) and prints JMH's table (ns per pair, bytes allocated per pair as
 * {@code gc.alloc.rate.norm}). No Redis is started. In this JVM (no fork): the benchmark jar is a Spring
 * Boot jar, whose nested classpath a forked JVM could not load; give the JVM a fixed heap
 * ({@code -Xms1g -Xmx1g}) for steadier figures.
 */
public final class ClientCostMain {

    private ClientCostMain() {
    }

    public static void run(String[] args) throws RunnerException {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        Options options = new OptionsBuilder()
                .include("^" + ClientCostBenchmark.class.getName().replace(".", "\\.") + "\\.")
                .forks(0)
                .threads(1)
                .warmupIterations(5)
                .warmupTime(TimeValue.seconds(1))
                .measurementIterations(iterations)
                .measurementTime(TimeValue.seconds(1))
                .timeUnit(TimeUnit.NANOSECONDS)
                .addProfiler(GCProfiler.class)
                .build();
        System.setProperty("jmh.ignoreLock", "true"); // another JMH run on a shared machine must not stop this one
        new Runner(options).run();
    }
}
