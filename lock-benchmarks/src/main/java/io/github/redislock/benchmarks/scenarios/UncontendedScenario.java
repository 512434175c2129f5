package io.github.redislock.benchmarks.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.redislock.benchmarks.clients.Implementations;
import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.measure.LatencySamples;
import io.github.redislock.benchmarks.measure.ProcessCpu;
import io.github.redislock.benchmarks.measure.ThreadGroupCpu;
import io.github.redislock.benchmarks.measure.RedisCommandStats;
import io.github.redislock.benchmarks.measure.RedisCpu;
import io.github.redislock.benchmarks.report.Row;

/** Scenario 1: T threads of one client instance, each locking and unlocking its own key. */
final class UncontendedScenario implements Scenario {

    @Override
    public String id() {
        return Scenarios.UNCONTENDED;
    }

    @Override
    public String title() {
        return "1. Uncontended: lock+unlock pairs on own keys";
    }

    @Override
    public String description(BenchmarkContext context) {
        return "T threads share one client instance; each thread locks and unlocks its own key in a loop "
                + "(the library's everyday blocking `lock`). Pairs/s over the measured window; latency of one "
                + "lock+unlock pair. The ceiling row sends redis-lock's own acquire and release script calls "
                + "through Lettuce's async API (after a JVM warm-up of its own), " + context.options().ceilingInFlight() + " pairs in flight over "
                + context.options().ceilingConnections() + " connections: what this Redis can do for two script calls per pair. "
                + "The scripts-alone rows (added when the ceiling is selected, measured in the same rounds as the libraries) send the same two script calls of an uncontended `lock` and `unlock` "
                + "from T threads through Lettuce's blocking API on one connection, with no library code around them: what the lock "
                + "model costs at T before redis-lock's client adds anything (its row against them). "
                + "Client CPU per pair: CPU time of this benchmark JVM in the measured window (all its threads: the workers, the "
                + "client's I/O threads, GC; on Linux not the JIT compiler's, which a busy machine delays into the window) divided by "
                + "the pairs completed in it, in core-µs; Redis CPU per pair likewise from INFO cpu. "
                + "Commands per pair: every command Redis ran in the measured window (INFO commandstats), those inside Lua "
                + "scripts included and the script calls themselves not, divided by the pairs completed in it. The window's "
                + "snapshots (commands, client and Redis CPU) are taken while every thread rests between two pairs, so they "
                + "span exactly the pairs counted.";
    }

    @Override
    public List<Row> run(BenchmarkContext context) {
        List<LockImplementation> implementations = new ArrayList<>(context.implementations());
        if (context.ceiling()) {
            implementations.add(Implementations.scriptsAlone());
        }
        List<Row> rows = new ArrayList<>(Rounds.measure(context, id(), context.options().roundsOf(id()), implementations,
                context.options().uncontendedThreads(), (implementation, threads) -> measure(context, id(), implementation, threads)));
        if (context.ceiling()) {
            rows.add(CeilingRun.measure(context, id()));
        }
        return rows;
    }

    /** One row of {@code scenario}: T threads of one client instance, each locking and unlocking its own key. */
    static Row measure(BenchmarkContext context, String scenario, LockImplementation implementation, int threads) {
        Row row = new Row(scenario, implementation.id(), implementation.displayName(), threads, 1);
        context.log(scenario + ": " + implementation.displayName() + ", T=" + threads);
        context.redis().flushAll();
        List<LatencySamples> samples = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            samples.add(new LatencySamples());
        }
        double[] redisCpu = new double[2];
        long[] clientCpu = new long[2];
        RedisCommandStats[] stats = new RedisCommandStats[2];
        List<Map<String, Object[]>> split = new ArrayList<>();
        try (LockClient client = implementation.connect(context.settings())) {
            TimedWorkers.Outcome outcome = TimedWorkers.runReadingAtRest("uncontended-" + implementation.id(), threads,
                    context.options().warmup(), context.options().measure(), (worker, measuring) -> {
                        String key = "bench:own:" + threads + ":" + worker;
                        long start = System.nanoTime();
                        client.lock(key);
                        client.unlock(key);
                        if (measuring) {
                            samples.get(worker).add(System.nanoTime() - start);
                        }
                    }, () -> {
                        // Nested, client CPU innermost: no snapshot's own work falls into the client CPU window.
                        if (ThreadGroupCpu.ENABLED) {
                            split.add(ThreadGroupCpu.snapshot());
                        }
                        stats[0] = RedisCommandStats.of(context.redis());
                        redisCpu[0] = RedisCpu.seconds(context.redis());
                        clientCpu[0] = ProcessCpu.nanosWithoutCompiler();
                    }, () -> {
                        clientCpu[1] = ProcessCpu.nanosWithoutCompiler();
                        redisCpu[1] = RedisCpu.seconds(context.redis());
                        stats[1] = RedisCommandStats.of(context.redis());
                        if (ThreadGroupCpu.ENABLED) {
                            split.add(ThreadGroupCpu.snapshot());
                        }
                    });
            row.redisCpuShare = (redisCpu[1] - redisCpu[0]) * 1e9 / outcome.measuredNanos();
            long[] sorted = LatencySamples.merge(samples);
            row.opsPerSecond = outcome.perSecond(sorted.length);
            if (split.size() == 2) {
                context.log("  " + ThreadGroupCpu.perPair(split.get(0), split.get(1), sorted.length));
            }
            // Per pair rather than per second: CPU per pair stays comparable when a busy machine cuts the pairs/s.
            row.clientCpuMicrosPerOp = clientCpu[0] < 0 ? Double.NaN : (clientCpu[1] - clientCpu[0]) / 1e3 / sorted.length;
            row.redisCpuMicrosPerOp = (redisCpu[1] - redisCpu[0]) * 1e6 / sorted.length;
            row.commandsPerOp = (double) (stats[1].commandsSince(stats[0]) - stats[1].scriptCallsSince(stats[0])) / sorted.length;
            context.log("  calls per pair: " + perPair(stats[1].growthSince(stats[0]), sorted.length));
            row.p50Micros = LatencySamples.percentileMicros(sorted, 50);
            row.p99Micros = LatencySamples.percentileMicros(sorted, 99);
            Runs.noteProblems(row, outcome);
        } catch (RuntimeException e) {
            Runs.failed(context, row, e);
        }
        return row;
    }

    /** Calls of each command per pair, e.g. {@code evalsha=2.000 hset=1.000}: what a pair sends, and beside it what runs on a timer or once per row. */
    private static String perPair(Map<String, Long> calls, long pairs) {
        StringBuilder line = new StringBuilder();
        calls.forEach((command, count) -> line.append(line.isEmpty() ? "" : " ").append(String.format(Locale.ROOT, "%s=%.3f", command, (double) count / pairs)));
        return line.toString();
    }
}
