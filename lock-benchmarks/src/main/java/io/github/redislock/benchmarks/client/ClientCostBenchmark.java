package io.github.redislock.benchmarks.client;

import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.client.LockClientProbe;
import io.github.redislock.core.RedisLocker;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The client's own work for one uncontended lock+unlock pair, Redis left out: argument encoding, hold
 * bookkeeping (holds map, watchdog registration, fencing-token thread-local) and Lettuce's building and
 * encoding of each {@code EVALSHA}, over {@link LockClientProbe}'s in-memory answers (a reply built once, so
 * not the decoding of a reply). One thread, time per pair; run with the GC profiler for the bytes allocated per pair.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ClientCostBenchmark {

    /** Not final and not constant, so that the JIT cannot fold the key away. */
    private String key = "order-42";

    private LockClientProbe probe;
    private RedisLocker locker;
    private long callsBefore;
    private long pairs;

    @Setup(Level.Trial)
    public void start() {
        probe = LockClientProbe.uncontended("lock:");
        locker = probe.locker();
        callsBefore = probe.scriptCalls();
    }

    /** The everyday {@code lock(key)} (watchdog) and {@code unlock(key)}. */
    @Benchmark
    public void lockUnlock() {
        locker.lock(key);
        locker.unlock(key);
        pairs++;
    }

    /** {@code tryLock(key, 0, 10 s)} with a fixed lease (no watchdog) and {@code unlock(key)}. */
    @Benchmark
    public boolean tryLockWithLeaseUnlock() throws InterruptedException {
        boolean taken = locker.tryLock(key, 0, 10, TimeUnit.SECONDS);
        locker.unlock(key);
        pairs++;
        return taken;
    }

    @TearDown(Level.Trial)
    public void stop() {
        long calls = probe.scriptCalls() - callsBefore;
        probe.close();
        if (calls != 2 * pairs) {
            throw new IllegalStateException(calls + " script calls for " + pairs + " pairs: a pair did not go the whole way");
        }
    }
}
