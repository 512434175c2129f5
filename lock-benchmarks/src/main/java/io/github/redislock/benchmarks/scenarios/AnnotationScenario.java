package io.github.redislock.benchmarks.scenarios;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.redislock.benchmarks.BenchmarkOptions;
import io.github.redislock.benchmarks.annotation.AnnotationOverheadBenchmark;
import io.github.redislock.benchmarks.annotation.OverheadApplication;
import io.github.redislock.benchmarks.measure.RedisCommandStats;
import io.github.redislock.benchmarks.report.Row;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;
import org.openjdk.jmh.util.ListStatistics;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario 4: what {@code @DistributedLock} costs on top of calling {@code Locker} by hand, as JMH
 * benchmarks in this JVM on one auto-configured application. Against Redis both variants pay two
 * round trips, whose noise can hide a few microseconds: they are timed in alternating rounds, and the
 * annotation's own work is also timed without Redis: its work besides the {@code Locker} calls, and
 * the proxy hop.
 */
final class AnnotationScenario implements Scenario {

    /** JMH's confidence level for its ±. */
    private static final double CONFIDENCE = 0.999;
    /**
     * Rounds per measured iteration of the Redis variants: each benchmark still gets its measured time,
     * cut into shorter pieces so that an annotated piece and its by-hand piece meet nearly the same load.
     */
    private static final int ROUNDS_PER_ITERATION = 5;

    /** The JMH benchmarks, in report order. */
    enum Variant {
        LOCKER_DIRECT("redisLockByHand", "redis-lock", "redis-lock: `Locker.lock` + `unlock` around the body", 2),
        DISTRIBUTED_LOCK("redisLockAnnotated", "redis-lock", "redis-lock: `@DistributedLock` method", 2),
        LOCK4J_TEMPLATE("lock4jByHand", "lock4j", "lock4j: `LockTemplate.lock` + `releaseLock` around the body", 2),
        LOCK4J_ANNOTATION("lock4jAnnotated", "lock4j", "lock4j: `@Lock4j` method", 2),
        ADVICE_WORK("adviceWork", "redis-lock", "no Redis: the `@DistributedLock` advice's work besides the `Locker` calls", 0),
        PROXY_HOP("proxyHop", "redis-lock", "no Redis: the proxy hop (do-nothing interceptor)", 0);

        final String method;
        final String implementationId;
        final String label;
        final int redisRoundTrips;

        Variant(String method, String implementationId, String label, int redisRoundTrips) {
            this.method = method;
            this.implementationId = implementationId;
            this.label = label;
            this.redisRoundTrips = redisRoundTrips;
        }

        /** The by-hand variant an annotated one is compared with; null for the others. */
        Variant byHand() {
            return switch (this) {
                case DISTRIBUTED_LOCK -> LOCKER_DIRECT;
                case LOCK4J_ANNOTATION -> LOCK4J_TEMPLATE;
                default -> null;
            };
        }
    }

    @Override
    public String id() {
        return Scenarios.ANNOTATION;
    }

    @Override
    public String title() {
        return "4. Annotation overhead: an annotated method against the same body calling the lock by hand";
    }

    @Override
    public String description(BenchmarkContext context) {
        BenchmarkOptions options = context.options();
        return "JMH (mode average time, 1 thread, in this JVM without a fork) on one Spring Boot application built by "
                + "auto-configuration (redis-lock starter and lock4j with its RedisTemplate executor, CGLIB proxies) against the run's "
                + "Redis. Each benchmark calls a tiny body (`sku.length() * quantity`) under the lock of one uncontended key: through "
                + "`@DistributedLock(key = \"'stock:' + #sku\")` (default wait, watchdog lease), or with `Locker.lock(\"stock:\" + sku)` / "
                + "`unlock` written around it; lock4j likewise through `@Lock4j(keys = \"#sku\", expire = 30000)` or `LockTemplate.lock` / "
                + "`releaseLock` with the same expire and its default acquire timeout. The Redis variants get "
                + options.jmhWarmupIterations() + " warm-up iterations of " + options.jmhIterationTime().toMillis() + " ms each, then "
                + rounds(options) + " rounds: a round measures one iteration of " + roundTime(options).toMillis() + " ms of the "
                + "annotated variant and one of its by-hand variant back to back, in alternating order, so that both meet the same "
                + "load and neither always runs first. The two rows without Redis (" + options.jmhWarmupIterations() + " warm-up and "
                + options.jmhIterations() + " measured iterations of " + options.jmhIterationTime().toMillis() + " ms) time what the "
                + "`@DistributedLock` advice adds per call apart from the lock itself: the application's own interceptor steps besides "
                + "its `Locker` calls (definition lookup, SpEL key evaluation with the parsed expression, wait resolution, "
                + "caller-transaction check, and the two `Locker` lookups through the suppliers the auto-configuration gave it), and "
                + "the hop through the same proxy into a do-nothing interceptor. ± is the 99.9% confidence half-width over the measured "
                + "iterations, as JMH computes it.";
    }

    @Override
    public List<Row> run(BenchmarkContext context) {
        List<Variant> variants = new ArrayList<>();
        for (Variant variant : Variant.values()) {
            if (context.implementations().stream().anyMatch(implementation -> implementation.id().equals(variant.implementationId))) {
                variants.add(variant);
            }
        }
        if (variants.isEmpty()) {
            return List.of();
        }
        Map<Variant, Row> rows = new EnumMap<>(Variant.class);
        for (Variant variant : variants) {
            Row row = new Row(id(), variant.implementationId, variant.label, 1, 1);
            row.variant = variant.name();
            row.redisRoundTrips = variant.redisRoundTrips;
            rows.put(variant, row);
        }
        context.log("annotation overhead: JMH over " + variants.stream().map(v -> v.method).collect(Collectors.joining(", ")));
        context.redis().flushAll();
        try (ConfigurableApplicationContext application = OverheadApplication.start(context.redis().host(), context.redis().port(),
                context.options().watchdogTimeout())) {
            AnnotationOverheadBenchmark.use(application);
            rows.forEach((variant, row) -> checkRedisTraffic(context, variant, row));
            List<Variant> withoutRedis = variants.stream().filter(v -> v.redisRoundTrips == 0).toList();
            if (!withoutRedis.isEmpty()) {
                Map<String, RunResult> results = runJmh(context, withoutRedis, context.options().jmhWarmupIterations(),
                        context.options().jmhIterations(), context.options().jmhIterationTime(), VerboseMode.NORMAL).stream()
                        .collect(Collectors.toMap(result -> methodOf(result.getParams().getBenchmark()), Function.identity()));
                withoutRedis.forEach(variant -> record(rows.get(variant), results.get(variant.method)));
            }
            runPairsInRounds(context, variants.stream().filter(v -> v.byHand() != null && variants.contains(v.byHand())).toList(), rows);
        } catch (RunnerException | RuntimeException e) {
            RuntimeException failure = e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
            rows.values().stream().filter(row -> !row.measured()).forEach(row -> Runs.failed(context, row, failure));
        } finally {
            AnnotationOverheadBenchmark.use(null);
        }
        context.redis().flushAll();
        return new ArrayList<>(rows.values());
    }

    /**
     * Times each annotated variant against its by-hand variant in rounds of one iteration each, back to
     * back and in alternating order. Timed one after the other, each for many seconds, two variants of
     * a few hundred microseconds meet different loads on a shared machine, and whichever JMH runs first
     * meets a different JIT and heap state; paired by round, their difference keeps only what the
     * variants do differently. The rows get the mean over the rounds; the annotated row also the mean
     * and 99.9% half-width of its per-round differences.
     */
    private static void runPairsInRounds(BenchmarkContext context, List<Variant> annotated, Map<Variant, Row> rows) throws RunnerException {
        if (annotated.isEmpty()) {
            return;
        }
        BenchmarkOptions options = context.options();
        int rounds = rounds(options);
        Map<Variant, double[]> scores = new EnumMap<>(Variant.class);
        for (Variant variant : annotated) {
            scores.put(variant, new double[rounds]);
            scores.put(variant.byHand(), new double[rounds]);
        }
        for (Variant variant : scores.keySet()) {
            runJmh(context, List.of(variant), options.jmhWarmupIterations(), 1, options.jmhIterationTime(), VerboseMode.NORMAL); // warm-up; its measured iteration is dropped
        }
        for (int round = 0; round < rounds; round++) {
            for (Variant variant : annotated) {
                List<Variant> order = round % 2 == 0 ? List.of(variant.byHand(), variant) : List.of(variant, variant.byHand());
                for (Variant timed : order) {
                    scores.get(timed)[round] = score(runJmh(context, List.of(timed), 0, 1, roundTime(options), VerboseMode.SILENT));
                }
            }
            int finished = round;
            if ((round + 1) % ROUNDS_PER_ITERATION != 0) {
                continue;
            }
            context.log("annotation overhead: round " + (round + 1) + " of " + rounds + ": " + scores.entrySet().stream()
                    .map(entry -> entry.getKey().method + " " + String.format(Locale.ROOT, "%.1f", entry.getValue()[finished]) + " µs")
                    .collect(Collectors.joining(", ")));
        }
        scores.forEach((variant, perRound) -> {
            Row row = rows.get(variant);
            if (!row.note.contains("FAILED")) {
                ListStatistics statistics = new ListStatistics(perRound);
                row.callMicros = statistics.getMean();
                row.callMicrosError = statistics.getMeanErrorAt(CONFIDENCE);
                row.opsPerSecond = 1e6 / row.callMicros;
            }
        });
        for (Variant variant : annotated) {
            double[] differences = new double[rounds];
            for (int round = 0; round < rounds; round++) {
                differences[round] = scores.get(variant)[round] - scores.get(variant.byHand())[round];
            }
            ListStatistics statistics = new ListStatistics(differences);
            rows.get(variant).differenceMicros = statistics.getMean();
            rows.get(variant).differenceMicrosError = statistics.getMeanErrorAt(CONFIDENCE);
        }
    }

    private static int rounds(BenchmarkOptions options) {
        return options.jmhIterations() * ROUNDS_PER_ITERATION;
    }

    private static Duration roundTime(BenchmarkOptions options) {
        return Duration.ofMillis(Math.max(10, options.jmhIterationTime().toMillis() / ROUNDS_PER_ITERATION));
    }

    private static double score(Collection<RunResult> results) {
        if (results.size() != 1) {
            throw new IllegalStateException("JMH produced no result (its error is in the run's output)");
        }
        return results.iterator().next().getPrimaryResult().getScore();
    }

    /**
     * Calls the benchmark once outside JMH and counts what reached Redis: a locking variant must run
     * its acquire and release scripts (an annotation that is not applied would run the bare body and
     * look fast), a variant said to use no Redis must send nothing.
     */
    private static void checkRedisTraffic(BenchmarkContext context, Variant variant, Row row) {
        AnnotationOverheadBenchmark benchmark = new AnnotationOverheadBenchmark();
        try {
            benchmark.lookUpBeans();
            Method call = AnnotationOverheadBenchmark.class.getMethod(variant.method);
            call.invoke(benchmark); // the first call may open connections
            RedisCommandStats before = RedisCommandStats.of(context.redis());
            call.invoke(benchmark);
            RedisCommandStats after = RedisCommandStats.of(context.redis());
            long scripts = after.scriptCallsSince(before);
            long commands = after.commandsSince(before);
            if (variant.redisRoundTrips > 0 && scripts < variant.redisRoundTrips) {
                row.addNote("FAILED: NOT LOCKING: one call ran " + scripts + " Lua script(s) on Redis, expected " + variant.redisRoundTrips);
            } else if (variant.redisRoundTrips == 0 && commands > 0) {
                row.addNote("FAILED: one call sent " + commands + " command(s) to Redis, expected none");
            }
        } catch (ReflectiveOperationException e) {
            Throwable cause = e instanceof InvocationTargetException invocation ? invocation.getTargetException() : e;
            row.addNote("FAILED: " + Runs.describe(cause));
        }
    }

    private static Collection<RunResult> runJmh(BenchmarkContext context, List<Variant> variants, int warmupIterations, int iterations,
                                                Duration iterationTime, VerboseMode verbosity) throws RunnerException {
        BenchmarkOptions options = context.options();
        String methods = variants.stream().map(v -> v.method).collect(Collectors.joining("|"));
        Options jmh = new OptionsBuilder()
                .include("^" + AnnotationOverheadBenchmark.class.getName().replace(".", "\\.") + "\\.(" + methods + ")$")
                .forks(0)
                .threads(1)
                .warmupIterations(warmupIterations)
                .warmupTime(TimeValue.milliseconds(options.jmhIterationTime().toMillis()))
                .measurementIterations(iterations)
                .measurementTime(TimeValue.milliseconds(iterationTime.toMillis()))
                .timeUnit(TimeUnit.MICROSECONDS)
                .shouldFailOnError(false)
                .build();
        // JMH refuses to start while another JMH run on the machine holds its lock file; this run
        // shares the machine anyway (the report says so), and must not fail for that.
        System.setProperty("jmh.ignoreLock", "true");
        return new Runner(jmh, OutputFormatFactory.createFormatInstance(context.progress(), verbosity)).run();
    }

    private static void record(Row row, RunResult result) {
        if (row.note.contains("FAILED")) {
            return; // its figure would not be what the row says it is
        }
        if (result == null) {
            row.addNote("FAILED: JMH produced no result (its error is in the run's output)");
            return;
        }
        Result<?> primary = result.getPrimaryResult();
        row.callMicros = primary.getScore();
        row.callMicrosError = primary.getScoreError();
        row.opsPerSecond = 1e6 / row.callMicros;
    }

    private static String methodOf(String benchmark) {
        return benchmark.substring(benchmark.lastIndexOf('.') + 1);
    }
}
