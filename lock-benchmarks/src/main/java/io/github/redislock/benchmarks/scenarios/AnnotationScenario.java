package io.github.redislock.benchmarks.scenarios;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario 4: what {@code @DistributedLock} costs on top of calling {@code Locker} by hand, as JMH
 * benchmarks in this JVM on one auto-configured application. Against Redis both variants pay two
 * round trips, whose noise can hide a few microseconds, so the annotation's own work is also timed
 * without Redis: its work besides the {@code Locker} calls, and the proxy hop.
 */
final class AnnotationScenario implements Scenario {

    /** The JMH benchmarks, in report order (JMH runs them in name order, which keeps each annotated/by-hand pair adjacent). */
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
        return "JMH (mode average time, 1 thread, in this JVM without a fork), " + options.jmhWarmupIterations() + " warm-up and "
                + options.jmhIterations() + " measured iterations of " + options.jmhIterationTime().toMillis() + " ms per benchmark, "
                + "on one Spring Boot application built by auto-configuration (redis-lock starter and lock4j with its RedisTemplate "
                + "executor, CGLIB proxies) against the run's Redis. Each benchmark calls a tiny body (`sku.length() * quantity`) "
                + "under the lock of one uncontended key: through `@DistributedLock(key = \"'stock:' + #sku\")` (default wait, watchdog "
                + "lease), or with `Locker.lock(\"stock:\" + sku)` / `unlock` written around it; lock4j likewise through "
                + "`@Lock4j(keys = \"#sku\", expire = 30000)` or `LockTemplate.lock` / `releaseLock` with the same expire and its default "
                + "acquire timeout. The two rows without Redis time what the `@DistributedLock` advice adds per call apart from the lock "
                + "itself: the interceptor's work besides its `Locker` calls (definition lookup, SpEL key evaluation with "
                + "the cached parsed expression and wait resolution, which is the shipped code; the caller-transaction check and the "
                + "two lazy `Locker` lookups, which mirror it), and the hop through the same proxy into a do-nothing interceptor. ± is JMH's 99.9% confidence half-width over the "
                + "measured iterations.";
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
        List<Row> rows = new ArrayList<>();
        for (Variant variant : variants) {
            Row row = new Row(id(), variant.implementationId, variant.label, 1, 1);
            row.variant = variant.name();
            row.redisRoundTrips = variant.redisRoundTrips;
            rows.add(row);
        }
        context.log("annotation overhead: JMH over " + variants.stream().map(v -> v.method).collect(Collectors.joining(", ")));
        context.redis().flushAll();
        try (ConfigurableApplicationContext application = OverheadApplication.start(context.redis().host(), context.redis().port(),
                context.options().watchdogTimeout())) {
            AnnotationOverheadBenchmark.use(application);
            for (int i = 0; i < variants.size(); i++) {
                checkRedisTraffic(context, variants.get(i), rows.get(i));
            }
            Map<String, RunResult> results = runJmh(context, variants).stream()
                    .collect(Collectors.toMap(result -> methodOf(result.getParams().getBenchmark()), Function.identity()));
            for (int i = 0; i < variants.size(); i++) {
                record(rows.get(i), results.get(variants.get(i).method));
            }
        } catch (RunnerException | RuntimeException e) {
            RuntimeException failure = e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
            rows.stream().filter(row -> !row.measured()).forEach(row -> Runs.failed(context, row, failure));
        } finally {
            AnnotationOverheadBenchmark.use(null);
        }
        context.redis().flushAll();
        return rows;
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

    private static Collection<RunResult> runJmh(BenchmarkContext context, List<Variant> variants) throws RunnerException {
        BenchmarkOptions options = context.options();
        String methods = variants.stream().map(v -> v.method).collect(Collectors.joining("|"));
        Options jmh = new OptionsBuilder()
                .include("^" + AnnotationOverheadBenchmark.class.getName().replace(".", "\\.") + "\\.(" + methods + ")$")
                .forks(0)
                .threads(1)
                .warmupIterations(options.jmhWarmupIterations())
                .warmupTime(TimeValue.milliseconds(options.jmhIterationTime().toMillis()))
                .measurementIterations(options.jmhIterations())
                .measurementTime(TimeValue.milliseconds(options.jmhIterationTime().toMillis()))
                .timeUnit(TimeUnit.MICROSECONDS)
                .shouldFailOnError(false)
                .build();
        // JMH refuses to start while another JMH run on the machine holds its lock file; this run
        // shares the machine anyway (the report says so), and must not fail for that.
        System.setProperty("jmh.ignoreLock", "true");
        return new Runner(jmh, OutputFormatFactory.createFormatInstance(context.progress(), VerboseMode.NORMAL)).run();
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
