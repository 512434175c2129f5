package io.github.redislock.benchmarks.scenarios;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.measure.LatencySamples;
import io.github.redislock.benchmarks.measure.RedisCommandStats;
import io.github.redislock.benchmarks.measure.RedisCpu;
import io.github.redislock.benchmarks.report.Row;
import io.github.redislock.testsupport.RedisClusterProcesses;
import io.github.redislock.testsupport.RedisServerProcess;

/**
 * Scenario 7: uncontended lock+unlock pairs over many keys on a Redis Cluster of three masters, beside
 * the same on the run's one server; and how many masters each release message reaches.
 */
final class ClusterScenario implements Scenario {

    private static final int MASTERS = 3;
    /** Each thread cycles over its own keys, so the pairs spread over every hash slot range. */
    private static final int KEYS_PER_THREAD = 128;
    static final String CLUSTER_SETUP = "cluster of " + MASTERS + " masters";
    static final String ONE_MASTER_SETUP = "one master";
    /** What a master counts of the publish messages other masters forward to it over the cluster bus (CLUSTER INFO). */
    private static final List<String> BUS_PUBLISHES_RECEIVED = List.of("cluster_stats_messages_publish_received", "cluster_stats_messages_publishshard_received");

    @Override
    public String id() {
        return Scenarios.CLUSTER;
    }

    @Override
    public String title() {
        return "7. Cluster: uncontended pairs on " + MASTERS + " masters against one";
    }

    @Override
    public String description(BenchmarkContext context) {
        int cores = Runtime.getRuntime().availableProcessors();
        return "T threads of one client instance lock and unlock keys of their own, each thread cycling over " + KEYS_PER_THREAD
                + " keys, on a Redis Cluster of " + MASTERS + " masters (local processes, no replicas) and on the run's one server. "
                + "Pairs/s, latency of one pair, Redis CPU (all masters added up, as a share of one core), and the masters each release "
                + "message reached: the one that ran the PUBLISH plus every master that received it over the cluster bus "
                + "(`cluster_stats_messages_publish_received` of CLUSTER INFO, per PUBLISH or SPUBLISH counted in INFO commandstats). "
                + "redis-lock sends a lock channel's messages with SPUBLISH where every master knows it (Redis 7+: they stay on the "
                + "lock's shard) and with PUBLISH elsewhere; its hand-offs to a waiting instance's own channel, which has no slot, stay "
                + "classic PUBLISH, which a cluster forwards to every master. Uncontended pairs publish nothing. Both setups share this machine's " + cores + " cores with the client JVM: "
                + "\"the same total cores\" here means the same machine, and one master is single-threaded, so where Redis is not the "
                + "limit the cluster cannot be faster and the figure shows what routing over a cluster costs.";
    }

    @Override
    public List<Row> run(BenchmarkContext context) {
        List<Row> rows = new ArrayList<>();
        List<LockImplementation> implementations = Scenarios.atScale(context, id());
        if (implementations.isEmpty()) {
            return rows;
        }
        RedisClusterProcesses cluster;
        try {
            context.log("cluster: starting " + MASTERS + " masters");
            cluster = RedisClusterProcesses.start(MASTERS, RedisServerProcess::start);
        } catch (RuntimeException e) {
            context.log("cluster: skipped, no Redis Cluster could be started: " + Runs.describe(e));
            Row skipped = new Row(id(), implementations.get(0).id(), implementations.get(0).displayName(), 0, 1);
            skipped.variant = CLUSTER_SETUP;
            skipped.addNote("skipped: no Redis Cluster could be started (" + Runs.describe(e) + ")");
            rows.add(skipped);
            return rows;
        }
        try (cluster) {
            for (LockImplementation implementation : implementations) {
                for (int threads : context.options().clusterThreads()) {
                    rows.add(measure(context, implementation, threads, ONE_MASTER_SETUP, List.of(context.redis()), context.settings()));
                    rows.add(measure(context, implementation, threads, CLUSTER_SETUP, cluster.masters(), context.settings().onCluster(cluster.addresses())));
                }
            }
        }
        return rows;
    }

    private Row measure(BenchmarkContext context, LockImplementation implementation, int threads, String setup, List<RedisServerProcess> masters,
                        LockImplementation.ClientSettings settings) {
        Row row = new Row(id(), implementation.id(), implementation.displayName(), threads, 1);
        row.variant = setup;
        context.log("cluster: " + implementation.displayName() + ", T=" + threads + ", " + setup);
        masters.forEach(RedisServerProcess::flushAll);
        List<LatencySamples> samples = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            samples.add(new LatencySamples());
        }
        long[] pairsStarted = new long[threads];
        Snapshot[] snapshots = new Snapshot[2];
        try (LockClient client = implementation.connect(settings)) {
            TimedWorkers.Outcome outcome = TimedWorkers.run("cluster-" + implementation.id(), threads,
                    context.options().warmup(), context.options().measure(), (worker, measuring) -> {
                        String key = "bench:cluster:" + worker + ":" + (pairsStarted[worker]++ % KEYS_PER_THREAD);
                        long start = System.nanoTime();
                        client.lock(key);
                        client.unlock(key);
                        if (measuring) {
                            samples.get(worker).add(System.nanoTime() - start);
                        }
                    }, () -> snapshots[0] = Snapshot.of(masters), () -> snapshots[1] = Snapshot.of(masters));
            long[] sorted = LatencySamples.merge(samples);
            row.opsPerSecond = outcome.perSecond(sorted.length);
            row.p50Micros = LatencySamples.percentileMicros(sorted, 50);
            row.p99Micros = LatencySamples.percentileMicros(sorted, 99);
            row.redisCpuShare = (snapshots[1].redisCpuSeconds - snapshots[0].redisCpuSeconds) * 1e9 / outcome.measuredNanos();
            long published = snapshots[1].commands.callsSince(snapshots[0].commands, "publish") + snapshots[1].commands.callsSince(snapshots[0].commands, "spublish");
            if (published == 0) {
                row.addNote("no release message published");
            } else if (masters.size() > 1) {
                row.shardsPerReleaseMessage = 1 + (double) (snapshots[1].busPublishesReceived - snapshots[0].busPublishesReceived) / published;
            }
            Runs.noteProblems(row, outcome);
        } catch (RuntimeException e) {
            Runs.failed(context, row, e);
        }
        return row;
    }

    /** What the masters counted at one moment: commands, CPU, publish messages received over the cluster bus. */
    private record Snapshot(RedisCommandStats commands, double redisCpuSeconds, long busPublishesReceived) {

        static Snapshot of(List<RedisServerProcess> masters) {
            double cpu = 0;
            long received = 0;
            for (RedisServerProcess master : masters) {
                cpu += RedisCpu.seconds(master);
                if (masters.size() > 1) {
                    received += busPublishesReceived(String.valueOf(master.command("CLUSTER", "INFO")));
                }
            }
            return new Snapshot(RedisCommandStats.of(masters), cpu, received);
        }

        /** Lines {@code name:value}; a counter of a message type never seen is absent, i.e. 0. */
        private static long busPublishesReceived(String clusterInfo) {
            long total = 0;
            for (String line : clusterInfo.split("\r?\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && BUS_PUBLISHES_RECEIVED.contains(line.substring(0, colon))) {
                    total += Long.parseLong(line.substring(colon + 1).trim());
                }
            }
            return total;
        }
    }
}
