package io.github.redislock.benchmarks.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.measure.ProcessCpu;
import io.github.redislock.benchmarks.measure.RedisCommandStats;
import io.github.redislock.benchmarks.report.Row;

/**
 * Scenario 3: what keeping many locks alive costs. One thread of one client instance takes N locks
 * with the library's automatic renewal and holds them; meanwhile the Redis commands run (from
 * {@code INFO commandstats}) and this JVM's CPU time are counted.
 */
final class RenewalScenario implements Scenario {

    @Override
    public String id() {
        return Scenarios.RENEWAL;
    }

    @Override
    public String title() {
        return "3. Renewal: locks held with automatic renewal";
    }

    @Override
    public String description(BenchmarkContext context) {
        return context.options().renewalLocks() + " locks taken by one thread with the library's automatic renewal "
                + "(watchdog timeout " + context.options().renewalWatchdogTimeout().toMillis() + " ms for all, so a renewal "
                + "tick every " + context.options().renewalTick().toMillis() + " ms) and held for "
                + context.options().renewalHold().toSeconds() + " s. Redis commands and Lua script calls per second during "
                + "the hold (INFO commandstats deltas, INFO itself excluded), script calls per renewal tick, this JVM's CPU "
                + "time per second of holding (all threads, the idle benchmark included), and threads the library added.";
    }

    @Override
    public List<Row> run(BenchmarkContext context) {
        List<Row> rows = new ArrayList<>();
        for (LockImplementation implementation : context.implementations()) {
            if (implementation.id().equals("registry-spin")) {
                continue; // renews exactly like the pub/sub mode; one row stands for both
            }
            rows.add(measure(context, implementation));
        }
        return rows;
    }

    private Row measure(BenchmarkContext context, LockImplementation implementation) {
        int count = context.options().renewalLocks();
        Row row = new Row(id(), implementation.id(), implementation.displayName(), 1, 1);
        row.heldLocks = count;
        Optional<String> unsupported = implementation.renewalUnsupported();
        if (unsupported.isPresent()) {
            row.addNote("n/a: " + unsupported.get());
            return row;
        }
        context.log("renewal: " + implementation.displayName() + ", " + count + " locks for " + context.options().renewalHold().toSeconds() + " s");
        context.redis().flushAll();
        int threadsBefore = ProcessCpu.liveThreads();
        try (LockClient client = implementation.connect(context.renewalSettings())) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                keys.add("bench:renewed:" + i);
            }
            keys.forEach(client::lockRenewed);
            System.gc(); // garbage of earlier rows is not this library's CPU time
            RedisCommandStats before = RedisCommandStats.of(context.redis());
            long cpuBefore = ProcessCpu.nanos();
            long start = System.nanoTime();
            TimedWorkers.sleep(context.options().renewalHold());
            long held = System.nanoTime() - start;
            long cpu = ProcessCpu.nanos() - cpuBefore;
            RedisCommandStats after = RedisCommandStats.of(context.redis());
            row.threadsAdded = ProcessCpu.liveThreads() - threadsBefore;
            double seconds = held / 1e9;
            row.commandsPerSecond = after.commandsSince(before) / seconds;
            row.scriptCallsPerSecond = after.scriptCallsSince(before) / seconds;
            row.renewalTicks = held / (double) context.options().renewalTick().toNanos();
            row.scriptCallsPerTick = after.scriptCallsSince(before) / row.renewalTicks;
            row.clientCpuMillisPerSecond = cpu / 1e6 / seconds;
            int alive = ((List<?>) context.redis().command("KEYS", "*renewed:*")).size();
            if (alive < count) {
                row.addNote("ONLY " + alive + " OF " + count + " LOCKS STILL IN REDIS after the hold");
            }
            keys.forEach(client::unlockRenewed);
            // Renewal tasks still scheduled see the locks gone on their next tick; closing earlier makes some libraries' timers fail.
            TimedWorkers.sleep(context.options().renewalTick().multipliedBy(3).dividedBy(2));
        } catch (RuntimeException e) {
            Runs.failed(context, row, e);
        }
        return row;
    }
}
