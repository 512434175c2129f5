package io.github.redislock.benchmarks.scenarios;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.measure.CriticalSection;
import io.github.redislock.benchmarks.measure.LatencySamples;
import io.github.redislock.benchmarks.measure.RedisCpu;
import io.github.redislock.benchmarks.report.Row;

/**
 * Scenario 2: T threads on one key with a tiny critical section, in one client instance or spread
 * over several (separate connections and client ids, as separate application instances would be).
 */
final class ContendedScenario implements Scenario {

    private static final String KEY = "bench:contended";

    @Override
    public String id() {
        return Scenarios.CONTENDED;
    }

    @Override
    public String title() {
        return "2. Contended: T threads on one key";
    }

    @Override
    public String description(BenchmarkContext context) {
        return "T threads lock one key, run a tiny critical section and unlock, in a loop, either all in one client "
                + "instance or spread round-robin over " + context.options().instances() + " instances. Acquisitions/s; "
                + "hand-off latency from the holder leaving the critical section (just before its unlock call) to another "
                + "thread entering it; per-thread acquisitions (min/max, and the smallest as a share of the fair share "
                + "total/T); the share of acquisitions where the thread that released took the lock again; overlaps "
                + "seen by an atomic occupancy counter (mutual-exclusion violations, must be 0).";
    }

    @Override
    public List<Row> run(BenchmarkContext context) {
        List<Setup> setups = new ArrayList<>();
        for (int instances : new int[] {1, context.options().instances()}) {
            for (int threads : context.options().contendedThreads()) {
                setups.add(new Setup(threads, instances));
            }
        }
        return Rounds.measure(context, id(), context.options().roundsOf(id()), context.implementations(), setups,
                (implementation, setup) -> measure(context, implementation, setup.threads(), setup.instances()));
    }

    /** One setup of a round: T threads spread over so many instances. */
    private record Setup(int threads, int instances) {
    }

    /** One row: {@code threads} threads spread over {@code instances} instances; also the waiters scenario's steady-state figure. */
    Row measure(BenchmarkContext context, LockImplementation implementation, int threads, int instances) {
        Row row = new Row(id(), implementation.id(), implementation.displayName(), threads, instances);
        context.log("contended: " + implementation.displayName() + ", T=" + threads + ", instances=" + instances);
        context.redis().flushAll();
        List<LockClient> clients = new ArrayList<>();
        double[] redisCpu = new double[2];
        try {
            for (int i = 0; i < instances; i++) {
                clients.add(implementation.connect(context.settings()));
            }
            CriticalSection section = new CriticalSection(threads);
            TimedWorkers.Outcome outcome = TimedWorkers.run("contended-" + implementation.id(), threads,
                    context.options().warmup(), context.options().measure(), (worker, measuring) -> {
                        LockClient client = clients.get(worker % instances);
                        client.lock(KEY);
                        try {
                            section.enter(worker);
                            section.leave(worker);
                        } finally {
                            client.unlock(KEY);
                        }
                    }, () -> {
                        redisCpu[0] = RedisCpu.seconds(context.redis());
                        section.measuring(true);
                    }, () -> {
                        section.measuring(false);
                        redisCpu[1] = RedisCpu.seconds(context.redis());
                    });
            record(row, section, outcome);
            row.redisCpuShare = (redisCpu[1] - redisCpu[0]) * 1e9 / outcome.measuredNanos();
            Runs.noteProblems(row, outcome);
        } catch (RuntimeException e) {
            Runs.failed(context, row, e);
        } finally {
            clients.forEach(LockClient::close);
        }
        return row;
    }

    private static void record(Row row, CriticalSection section, TimedWorkers.Outcome outcome) {
        long total = section.measuredAcquisitions();
        long[] perThread = section.acquisitionsPerWorker();
        long[] handOffs = section.sortedHandOffNanos();
        row.opsPerSecond = outcome.perSecond(total);
        row.handOffP50Micros = LatencySamples.percentileMicros(handOffs, 50);
        row.handOffP99Micros = LatencySamples.percentileMicros(handOffs, 99);
        row.minThreadOps = Arrays.stream(perThread).min().orElse(0);
        row.maxThreadOps = Arrays.stream(perThread).max().orElse(0);
        row.minFairShare = total == 0 ? Double.NaN : row.minThreadOps / ((double) total / perThread.length);
        row.sameThreadShare = section.sameThreadShare();
        row.violations = section.violations();
        if (row.violations > 0 || section.lostUpdates()) {
            row.addNote("MUTUAL EXCLUSION VIOLATED (" + row.violations + " overlaps)");
        }
    }
}
