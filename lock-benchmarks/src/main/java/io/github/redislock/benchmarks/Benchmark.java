package io.github.redislock.benchmarks;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.benchmarks.clients.Implementations;
import io.github.redislock.benchmarks.report.MarkdownReport;
import io.github.redislock.benchmarks.report.Row;
import io.github.redislock.benchmarks.report.RunFacts;
import io.github.redislock.benchmarks.scenarios.BenchmarkContext;
import io.github.redislock.benchmarks.scenarios.JvmWarmUp;
import io.github.redislock.benchmarks.scenarios.Scenario;
import io.github.redislock.benchmarks.scenarios.Scenarios;
import io.github.redislock.testsupport.RedisBinary;
import io.github.redislock.testsupport.RedisServerProcess;

/** One benchmark run: starts its own Redis, runs the chosen scenarios on it and builds the report. */
public final class Benchmark {

    private final BenchmarkOptions options;
    private final String commandLine;
    private final PrintStream progress;

    public Benchmark(BenchmarkOptions options, String commandLine, PrintStream progress) {
        this.options = options;
        this.commandLine = commandLine;
        this.progress = progress;
    }

    public MarkdownReport run() {
        ZonedDateTime started = ZonedDateTime.now().withNano(0);
        List<Scenario> scenarios = Scenarios.select(options.scenarios());
        List<Row> rows = new ArrayList<>();
        List<MarkdownReport.Section> sections = new ArrayList<>();
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            progress.println("Redis: " + RedisBinary.describe() + " on port " + redis.port());
            String redisVersion = redis.info("server").getOrDefault("redis_version", RedisBinary.version());
            BenchmarkContext context = new BenchmarkContext(options, redis, Implementations.select(options.implementations(), options.baselineJar(), options.baselineName()),
                    options.implementations().contains(Implementations.CEILING), progress);
            JvmWarmUp.run(context);
            for (Scenario scenario : scenarios) {
                sections.add(new MarkdownReport.Section(scenario.id(), scenario.title(), scenario.description(context)));
                rows.addAll(scenario.run(context));
            }
            RunFacts facts = new RunFacts(started, Runtime.getRuntime().availableProcessors(),
                    System.getProperty("os.name") + " " + System.getProperty("os.arch"),
                    jdk(),
                    redisVersion, RedisBinary.source() == RedisBinary.Source.EMBEDDED_REDIS_JAR ? "the embedded-redis jar's binary" : "redis-server from " + RedisBinary.source(),
                    commandLine, options.note(), durations());
            return new MarkdownReport(facts, sections, rows);
        }
    }

    private static String jdk() {
        List<String> flags = ManagementFactory.getRuntimeMXBean().getInputArguments();
        String jdk = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
        return flags.isEmpty() ? jdk : jdk + " (" + String.join(" ", flags) + ")";
    }

    private String durations() {
        return "JVM warm-up " + seconds(options.jvmWarmup()) + " s per implementation and round (again while the JIT is busy, at most 4 rounds); warm-up " + seconds(options.warmup()) + " s and " + seconds(options.measure()) + " s measured per row; "
                + "renewal hold " + seconds(options.renewalHold()) + " s; lease/watchdog in scenarios 1-2 "
                + seconds(options.watchdogTimeout()) + " s; "
                + (options.roundsOf(Scenarios.UNCONTENDED) == 1 ? "" : "scenarios 1, 2, 5 and 6 in " + options.roundsOf(Scenarios.UNCONTENDED)
                        + " rounds (the implementations' order turned by one place a round); ")
                + "scenario 4: JMH in this JVM (no fork), " + options.jmhWarmupIterations()
                + " warm-up and " + options.jmhIterations() + " measured iterations of " + seconds(options.jmhIterationTime()) + " s per benchmark";
    }

    private static String seconds(java.time.Duration duration) {
        double value = duration.toMillis() / 1000.0;
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
