package io.github.redislock.benchmarks.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import io.github.redislock.benchmarks.scenarios.CeilingCalls;
import io.github.redislock.benchmarks.clients.Implementations;
import io.github.redislock.benchmarks.measure.RedisCpu;
import io.github.redislock.benchmarks.report.Row;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * What Redis itself can do: redis-lock's own acquire and release scripts, each pair on its own key,
 * sent through Lettuce's async API with many pairs in flight, so neither a thread nor a round trip
 * waits. No lock library can beat it; the report divides by it.
 */
final class CeilingRun {

    private static final long LEASE_MILLIS = 30_000;

    private final List<StatefulRedisConnection<byte[], byte[]>> connections = new ArrayList<>();
    private final LongAdder pairs = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean measuring;
    private volatile boolean stopped;
    private CountDownLatch finished;
    /** Per slot, built once: the ceiling measures Redis, not the building of arguments. */
    private CeilingCalls.Call[] acquireCalls;
    private CeilingCalls.Call[] releaseCalls;

    private CeilingRun() {
    }

    static Row measure(BenchmarkContext context, String scenario) {
        int inFlight = context.options().ceilingInFlight();
        Row row = new Row(scenario, Implementations.CEILING, "ceiling: lock scripts via Lettuce async", inFlight, 1);
        context.log("uncontended: ceiling, " + inFlight + " pairs in flight on " + context.options().ceilingConnections() + " connections");
        context.redis().flushAll();
        RedisClient client = RedisClient.create(RedisURI.create(context.redis().host(), context.redis().port()));
        CeilingRun run = new CeilingRun();
        try {
            run.execute(context, client, inFlight);
            if (run.failure.get() != null) {
                row.addNote("FAILED: " + Runs.describe(run.failure.get()));
            }
            row.opsPerSecond = run.pairs.sum() * 1e9 / run.measuredNanos;
            row.redisCpuShare = run.redisCpuShare;
            row.addNote(inFlight + " pairs in flight on " + context.options().ceilingConnections() + " connections");
        } catch (RuntimeException e) {
            Runs.failed(context, row, e);
        } finally {
            run.connections.forEach(StatefulRedisConnection::close);
            client.shutdown();
        }
        return row;
    }

    private long measuredNanos;
    private double redisCpuShare;

    private void execute(BenchmarkContext context, RedisClient client, int inFlight) {
        for (int i = 0; i < context.options().ceilingConnections(); i++) {
            connections.add(client.connect(ByteArrayCodec.INSTANCE));
        }
        CeilingCalls.Call sample = CeilingCalls.acquire("lock:", "ceiling", "ceiling:0", LEASE_MILLIS);
        connections.get(0).sync().scriptLoad(CeilingCalls.body(sample));
        connections.get(0).sync().scriptLoad(CeilingCalls.body(CeilingCalls.release("lock:", "ceiling", "ceiling:0")));
        finished = new CountDownLatch(inFlight);
        acquireCalls = new CeilingCalls.Call[inFlight];
        releaseCalls = new CeilingCalls.Call[inFlight];
        for (int slot = 0; slot < inFlight; slot++) {
            // The library's own calls for lock(key) with the watchdog's lease (which may queue) and the final unlock(key).
            acquireCalls[slot] = CeilingCalls.acquire("lock:", "ceiling-" + slot, "ceiling:" + slot, LEASE_MILLIS);
            releaseCalls[slot] = CeilingCalls.release("lock:", "ceiling-" + slot, "ceiling:" + slot);
        }
        for (int slot = 0; slot < inFlight; slot++) {
            next(slot);
        }
        // The ceiling's client code gets a JVM warm-up of its own, as every implementation does: cold, it
        // and not Redis was the limit (about 28k pairs/s at 68% Redis CPU against 39k at 96% after 5 s).
        TimedWorkers.sleep(context.options().jvmWarmup().plus(context.options().warmup()));
        double redisCpuBefore = RedisCpu.seconds(context.redis());
        long start = System.nanoTime();
        measuring = true;
        TimedWorkers.sleep(context.options().measure());
        measuring = false;
        measuredNanos = System.nanoTime() - start;
        redisCpuShare = (RedisCpu.seconds(context.redis()) - redisCpuBefore) * 1e9 / measuredNanos;
        stopped = true;
        try {
            if (!finished.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("Ceiling pairs did not finish within 60 s of the stop");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Benchmark interrupted", e);
        }
    }

    /** Runs one acquire+release pair on the slot's key, and the next one when it completes. */
    private void next(int slot) {
        if (stopped || failure.get() != null) {
            finished.countDown();
            return;
        }
        RedisAsyncCommands<byte[], byte[]> redis = connections.get(slot % connections.size()).async();
        String key = "ceiling-" + slot;
        CeilingCalls.Call acquire = acquireCalls[slot];
        CeilingCalls.Call release = releaseCalls[slot];
        boolean counted = measuring;
        redis.<List<Object>>evalsha(acquire.sha1(), ScriptOutputType.MULTI, acquire.keys(), acquire.args())
                .thenCompose(acquired -> {
                    if (acquired.size() != 1) { // a first hold's token alone (MULTI reads a lone integer as a list of one)
                        throw new IllegalStateException("Ceiling slot " + slot + " did not take its own key " + key + " as a first hold: " + acquired);
                    }
                    return redis.<Long>evalsha(release.sha1(), ScriptOutputType.INTEGER, release.keys(), release.args());
                })
                .thenApply(released -> {
                    if (released != 0) {
                        throw new IllegalStateException("Ceiling slot " + slot + " did not free its key " + key + ": " + released);
                    }
                    return released;
                })
                .whenComplete((released, error) -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                    } else if (counted && measuring) {
                        pairs.increment();
                    }
                    next(slot);
                });
    }
}
