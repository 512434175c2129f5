package io.github.redislock.benchmarks.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.core.script.LockCommands;
import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.measure.ProcessCpu;
import io.github.redislock.benchmarks.measure.RedisCommandStats;
import io.github.redislock.benchmarks.measure.RedisCpu;
import io.github.redislock.benchmarks.measure.RedisMemory;
import io.github.redislock.benchmarks.report.Row;

/**
 * Scenario 6: a hundred thousand locks held with automatic renewal, spread over several instances. One
 * thread per instance takes its share, all hold them for a while, then each releases its own; the
 * renewal script calls per tick of one instance are compared with what its batch size allows.
 */
final class HeldLocksScenario implements Scenario {

    /** Counts the lock hashes (not any other key a library keeps beside them) whose names match ARGV[1]. */
    private static final String COUNT_HASHES = "local n = 0 for _, k in ipairs(redis.call('keys', ARGV[1])) do "
            + "if redis.call('type', k).ok == 'hash' then n = n + 1 end end return n";

    @Override
    public String id() {
        return Scenarios.HELD_LOCKS;
    }

    @Override
    public String title() {
        return "6. Held locks: many locks renewed by the watchdog across instances";
    }

    @Override
    public String description(BenchmarkContext context) {
        return context.options().heldLocks() + " locks with the library's automatic renewal, spread evenly over "
                + context.options().heldInstances() + " instances (one thread each takes its share one after the other), held for "
                + context.options().heldHold().toMillis() / 1000.0 + " s with a watchdog timeout of " + context.options().renewalWatchdogTimeout().toMillis()
                + " ms (a tick every " + context.options().renewalTick().toMillis() + " ms) after one more tick that is not counted, then "
                + "released by the threads that took them. "
                + "Seconds to take and to release them all, and the CPU time per lock taken of this JVM (all threads but the JIT compiler's, as in scenario 1) and of "
                + "Redis while taking them (steadier than seconds on a shared machine); growth of Redis' `used_memory` per held lock; Lua script calls per renewal tick "
                + "of one instance during the hold (INFO commandstats, divided by the instances and by hold / tick), against the goal "
                + "ceil(locks per instance / " + LockCommands.MAX_RENEWAL_BATCH + "), redis-lock's renewal batch (`LockCommands.MAX_RENEWAL_BATCH`); "
                + "this JVM's CPU time per second of holding (all threads); platform threads the libraries added; keys left in Redis "
                + "after the release.";
    }

    @Override
    public List<Row> run(BenchmarkContext context) {
        return Rounds.measure(context, id(), context.options().roundsOf(id()), Scenarios.atScale(context, id()),
                List.of(context.options().heldInstances()), (implementation, instances) -> measure(context, implementation));
    }

    private Row measure(BenchmarkContext context, LockImplementation implementation) {
        int instances = context.options().heldInstances();
        int count = context.options().heldLocks();
        Row row = new Row(id(), implementation.id(), implementation.displayName(), instances, instances);
        row.heldLocks = count;
        if (implementation.id().equals("redis-lock")) {
            row.renewalCallsGoal = (long) Math.ceil((double) count / instances / LockCommands.MAX_RENEWAL_BATCH);
        }
        context.log("held locks: " + implementation.displayName() + ", " + count + " locks on " + instances + " instances");
        context.redis().flushAll();
        List<LockClient> clients = new ArrayList<>();
        List<Thread> holders = new ArrayList<>();
        CountDownLatch taken = new CountDownLatch(instances);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(instances);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            int threadsBefore = ProcessCpu.liveThreads();
            for (int i = 0; i < instances; i++) {
                clients.add(implementation.connect(context.renewalSettings()));
            }
            long memoryBefore = RedisMemory.usedBytes(context.redis()); // after connecting: connection buffers are not the locks'
            long start = System.nanoTime();
            long takeCpuBefore = ProcessCpu.nanosWithoutCompiler();
            double takeRedisCpuBefore = RedisCpu.seconds(context.redis());
            for (int i = 0; i < instances; i++) {
                List<String> keys = new ArrayList<>();
                for (int n = i; n < count; n += instances) {
                    keys.add("bench:held:" + n);
                }
                LockClient client = clients.get(i);
                Thread holder = new Thread(() -> holdThenRelease(client, keys, taken, release, released, failure), "held-locks-" + i);
                holder.setDaemon(true);
                holders.add(holder);
                holder.start();
            }
            taken.await();
            row.takeSeconds = (System.nanoTime() - start) / 1e9;
            row.clientCpuMicrosPerOp = (ProcessCpu.nanosWithoutCompiler() - takeCpuBefore) / 1e3 / count;
            row.redisCpuMicrosPerOp = (RedisCpu.seconds(context.redis()) - takeRedisCpuBefore) * 1e6 / count;
            throwIfFailed(failure);
            row.redisBytesPerItem = (double) (RedisMemory.usedBytes(context.redis()) - memoryBefore) / count;

            // The window opens a tick later: the first tick after the taking may still load the renewal script (NOSCRIPT, then EVAL).
            TimedWorkers.sleep(context.options().renewalTick());
            System.gc(); // garbage of taking them is not the cost of holding them
            RedisCommandStats before = RedisCommandStats.of(context.redis());
            long cpuBefore = ProcessCpu.nanos();
            long holdStart = System.nanoTime();
            TimedWorkers.sleep(context.options().heldHold());
            long held = System.nanoTime() - holdStart;
            long cpu = ProcessCpu.nanos() - cpuBefore;
            RedisCommandStats after = RedisCommandStats.of(context.redis());
            row.threadsAdded = ProcessCpu.liveThreads() - threadsBefore - instances; // the holding threads are the benchmark's
            double seconds = held / 1e9;
            row.commandsPerSecond = after.commandsSince(before) / seconds;
            row.scriptCallsPerSecond = after.scriptCallsSince(before) / seconds;
            row.renewalTicks = held / (double) context.options().renewalTick().toNanos();
            row.scriptCallsPerTick = after.scriptCallsSince(before) / row.renewalTicks / instances;
            row.clientCpuMillisPerSecond = cpu / 1e6 / seconds;
            long alive = (Long) context.redis().command("EVAL", COUNT_HASHES, "0", "*bench:held:*");
            if (alive < count) {
                row.addNote("ONLY " + alive + " OF " + count + " LOCKS STILL IN REDIS after the hold");
            }

            long releaseStart = System.nanoTime();
            release.countDown();
            released.await();
            row.releaseSeconds = (System.nanoTime() - releaseStart) / 1e9;
            throwIfFailed(failure);
            // Renewal tasks still scheduled see the locks gone on their next tick; closing earlier makes some libraries' timers fail.
            TimedWorkers.sleep(context.options().renewalTick().multipliedBy(3).dividedBy(2));
            row.keysLeft = (Long) context.redis().command("DBSIZE");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Benchmark interrupted", e);
        } catch (RuntimeException e) {
            Runs.failed(context, row, e);
        } finally {
            release.countDown();
            clients.forEach(LockClient::close);
        }
        return row;
    }

    /** One instance's thread: takes its keys, waits for the word, releases them (an owner is a thread, so the same one must). */
    private static void holdThenRelease(LockClient client, List<String> keys, CountDownLatch taken, CountDownLatch release,
                                        CountDownLatch released, AtomicReference<Throwable> failure) {
        try {
            keys.forEach(client::lockRenewed);
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        } finally {
            taken.countDown();
        }
        try {
            release.await();
            if (failure.get() == null) {
                keys.forEach(client::unlockRenewed);
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        } finally {
            released.countDown();
        }
    }

    private static void throwIfFailed(AtomicReference<Throwable> failure) {
        Throwable first = failure.get();
        if (first != null) {
            throw new IllegalStateException("A holding thread failed: " + Runs.describe(first), first);
        }
    }
}
