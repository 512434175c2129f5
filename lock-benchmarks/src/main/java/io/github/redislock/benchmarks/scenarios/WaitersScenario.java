package io.github.redislock.benchmarks.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.benchmarks.clients.LockClient;
import io.github.redislock.benchmarks.clients.LockImplementation;
import io.github.redislock.benchmarks.measure.CriticalSection;
import io.github.redislock.benchmarks.measure.LatencySamples;
import io.github.redislock.benchmarks.measure.ProcessCpu;
import io.github.redislock.benchmarks.measure.RedisCommandStats;
import io.github.redislock.benchmarks.measure.RedisMemory;
import io.github.redislock.benchmarks.report.Row;

/**
 * Scenario 5: thousands of threads queued on one key. One holder takes the key; every waiter (spread
 * round-robin over the instances) calls {@code lock} and waits; once all of them wait, the holder
 * releases and each waiter runs the critical section once and unlocks. The same is done with one waiter
 * per instance locking in a loop (scenario 2's row), for the hand-off rate the big queue is compared with.
 */
final class WaitersScenario implements Scenario {

    private static final String KEY = "bench:waiters";
    /** The variant of the rows of one waiter per instance locking in a loop, which the queued rows are compared with. */
    static final String LOOPING = "looping";
    /** The setup of the queued waiters' row (its variant stays empty). */
    private static final String QUEUED = "queued";
    /** How long all waiters may take to start waiting, and to be served. */
    private static final Duration QUEUEING_LIMIT = Duration.ofMinutes(3);
    private static final Duration SERVING_LIMIT = Duration.ofMinutes(5);
    private static final long POLL_MILLIS = 20;
    /** Without a queue in Redis to watch, how long to leave waiters after their first try before the release. */
    private static final Duration SETTLE_WITHOUT_QUEUE = Duration.ofMillis(500);

    @Override
    public String id() {
        return Scenarios.WAITERS;
    }

    @Override
    public String title() {
        return "5. Waiters: thousands of threads queued on one key";
    }

    @Override
    public String description(BenchmarkContext context) {
        return context.options().waiterInstances() * context.options().waitersPerInstance() + " waiters (" + context.options().waiterInstances() + " instances x " + context.options().waitersPerInstance()
                + " " + WaiterThreads.available().describe() + ") call `lock` on one key while a holder keeps it; once every waiter "
                + "waits (for redis-lock: once its wait queue in Redis lists all of them; otherwise once each made its first script call, "
                + "plus " + SETTLE_WITHOUT_QUEUE.toMillis() + " ms), the holder releases and each waiter runs a tiny critical section once "
                + "and unlocks. Hand-offs/s from the holder's release to the last waiter's unlock, against one waiter per instance "
                + "locking in a loop for the row's seconds (scenario 2's measurement, T = instances; its row is marked \"looping\"); "
                + "waiters served exactly once; hand-offs that did not go to the head of the wait queue as Redis listed it just before the "
                + "release (redis-lock only: the others keep no queue); growth of Redis' `used_memory` per waiter while all wait; "
                + "platform threads the library added besides the waiters themselves; overlaps seen in the critical section.";
    }

    @Override
    public List<Row> run(BenchmarkContext context) {
        WaiterThreads threads = WaiterThreads.available();
        int instances = context.options().waiterInstances();
        // two setups a round: every implementation's looping row, then every one's queue
        return Rounds.measure(context, id(), context.options().roundsOf(id()), Scenarios.atScale(context, id()), List.of(LOOPING, QUEUED),
                (implementation, setup) -> setup.equals(LOOPING) ? steadyState(context, implementation, instances)
                        : queued(context, implementation, instances, threads));
    }

    private Row queued(BenchmarkContext context, LockImplementation implementation, int instances, WaiterThreads threads) {
        Row row = new Row(id(), implementation.id(), implementation.displayName(), instances * context.options().waitersPerInstance(), instances);
        context.log("waiters: " + implementation.displayName() + ", " + row.threads + " waiters on " + instances + " instances, " + threads.describe());
        context.redis().flushAll();
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < instances; i++) {
                clients.add(implementation.connect(context.settings()));
            }
            record(row, Round.run(context, clients, context.options().waitersPerInstance(), threads));
        } catch (RuntimeException e) {
            Runs.failed(context, row, e);
        } finally {
            clients.forEach(LockClient::close);
        }
        return row;
    }

    /** What the queue's hand-offs/s are compared with: one waiter per instance locking in a loop, the contended scenario's row for it. */
    private Row steadyState(BenchmarkContext context, LockImplementation implementation, int instances) {
        Row contended = new ContendedScenario().measure(context, implementation, instances, instances);
        Row row = new Row(id(), implementation.id(), implementation.displayName(), instances, instances);
        row.opsPerSecond = contended.opsPerSecond;
        row.handOffP50Micros = contended.handOffP50Micros;
        row.handOffP99Micros = contended.handOffP99Micros;
        row.violations = contended.violations;
        row.variant = LOOPING;
        row.addNote("looping, as in scenario 2");
        if (!contended.note.isEmpty()) {
            row.addNote(contended.note);
        }
        return row;
    }

    private static void record(Row row, Round round) {
        row.opsPerSecond = round.waiters * 1e9 / round.servingNanos;
        row.servedOnce = round.servedOnce;
        row.violations = round.violations;
        row.threadsAdded = round.threadsAdded;
        row.redisBytesPerItem = (double) round.memoryGrowth / round.waiters;
        row.outOfQueueOrder = round.outOfQueueOrder;
        long[] sorted = LatencySamples.merge(List.of(round.handOffs));
        row.handOffP50Micros = LatencySamples.percentileMicros(sorted, 50);
        row.handOffP99Micros = LatencySamples.percentileMicros(sorted, 99);
        if (round.problem != null) {
            row.addNote(round.problem);
        }
        if (row.servedOnce != round.waiters) {
            row.addNote("ONLY " + row.servedOnce + " OF " + round.waiters + " WAITERS SERVED EXACTLY ONCE");
        }
        if (row.violations > 0) {
            row.addNote("MUTUAL EXCLUSION VIOLATED (" + row.violations + " overlaps)");
        }
        if (row.outOfQueueOrder > 0) {
            row.addNote("NOT IN QUEUE ORDER");
        }
    }

    /** One holder, {@code perInstance} waiters on every instance, each served once. */
    private static final class Round {

        int waiters;
        long servingNanos;
        long servedOnce;
        long violations;
        int threadsAdded;
        long memoryGrowth;
        long outOfQueueOrder = -1;
        LatencySamples handOffs = new LatencySamples();
        String problem;

        static Round run(BenchmarkContext context, List<LockClient> clients, int perInstance, WaiterThreads threads) {
            Round round = new Round();
            round.execute(context, clients, perInstance, threads);
            return round;
        }

        private void execute(BenchmarkContext context, List<LockClient> clients, int perInstance, WaiterThreads threads) {
            waiters = clients.size() * perInstance;
            int holder = waiters; // the holder's slot in the critical section, after the waiters'
            CriticalSection section = new CriticalSection(waiters + 1);
            int[] servedOrder = new int[waiters];
            AtomicInteger served = new AtomicInteger();
            long[] threadIds = new long[waiters];
            AtomicInteger started = new AtomicInteger();
            CountDownLatch finished = new CountDownLatch(waiters);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            LockClient holderClient = clients.get(0);
            Optional<String> queueKey = holderClient.waitQueueKey(KEY);

            holderClient.lock(KEY);
            boolean holding = true;
            section.measuring(true);
            section.enter(holder);
            RedisCommandStats before = RedisCommandStats.of(context.redis());
            long memoryBefore = RedisMemory.usedBytes(context.redis());
            int threadsBefore = ProcessCpu.liveThreads();
            ExecutorService executor = threads.newExecutor();
            try {
                for (int i = 0; i < waiters; i++) {
                    int waiter = i;
                    LockClient client = clients.get(i % clients.size());
                    executor.execute(() -> {
                        threadIds[waiter] = Thread.currentThread().getId();
                        started.incrementAndGet();
                        try {
                            client.lock(KEY);
                            try {
                                section.enter(waiter);
                                servedOrder[served.getAndIncrement()] = waiter;
                                section.leave(waiter);
                            } finally {
                                client.unlock(KEY);
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        } finally {
                            finished.countDown();
                        }
                    });
                }
                awaitAllWaiting(context, queueKey, started, before);
                threadsAdded = ProcessCpu.liveThreads() - threadsBefore - (threads.virtual() ? 0 : waiters);
                memoryGrowth = RedisMemory.usedBytes(context.redis()) - memoryBefore;
                List<Integer> queueOrder = queueKey.map(key -> queueOrder(context, key, threadIds)).orElse(null);

                long start = System.nanoTime();
                section.leave(holder);
                holderClient.unlock(KEY);
                holding = false;
                if (!finished.await(SERVING_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    problem = (waiters - finished.getCount()) + " of " + waiters + " waiters served within " + SERVING_LIMIT.toMinutes() + " min";
                }
                servingNanos = System.nanoTime() - start;
                long[] perWaiter = section.acquisitionsPerWorker();
                for (int i = 0; i < waiters; i++) {
                    servedOnce += perWaiter[i] == 1 ? 1 : 0;
                }
                violations = section.violations() + (section.lostUpdates() && section.violations() == 0 ? 1 : 0);
                for (long latency : section.sortedHandOffNanos()) {
                    handOffs.add(latency);
                }
                if (queueOrder != null) {
                    outOfQueueOrder = outOfOrder(queueOrder, servedOrder, served.get());
                    if (queueOrder.size() != waiters) {
                        problem = "the wait queue listed " + queueOrder.size() + " of " + waiters + " waiters";
                    }
                }
                if (failure.get() != null) {
                    problem = "FAILED: " + Runs.describe(failure.get());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Benchmark interrupted", e);
            } finally {
                if (holding) {
                    section.leave(holder);
                    holderClient.unlock(KEY);
                }
                executor.shutdown();
                awaitTermination(executor);
            }
        }

        /** Until every waiter started and made its first try, and the wait queue (when there is one) lists all of them. */
        private void awaitAllWaiting(BenchmarkContext context, Optional<String> queueKey, AtomicInteger started, RedisCommandStats before) {
            long deadline = System.nanoTime() + QUEUEING_LIMIT.toNanos();
            while (true) {
                boolean tried = started.get() == waiters && RedisCommandStats.of(context.redis()).scriptCallsSince(before) >= waiters;
                if (tried && queueKey.isEmpty()) {
                    TimedWorkers.sleep(SETTLE_WITHOUT_QUEUE);
                    return;
                }
                if (tried && ((Number) context.redis().command("LLEN", queueKey.get())).longValue() >= waiters) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Only " + started.get() + " of " + waiters + " waiters started, and not all of them waited, within "
                            + QUEUEING_LIMIT.toMinutes() + " min");
                }
                TimedWorkers.sleep(Duration.ofMillis(POLL_MILLIS));
            }
        }

        /**
         * The waiters as the wait queue lists them, oldest first. A queue member ends with the owner, whose
         * last part is the waiting thread's id; members of no waiter of this round are left out.
         */
        private static List<Integer> queueOrder(BenchmarkContext context, String queueKey, long[] threadIds) {
            Map<Long, Integer> byThread = new HashMap<>();
            for (int i = 0; i < threadIds.length; i++) {
                byThread.put(threadIds[i], i);
            }
            List<Integer> order = new ArrayList<>();
            for (Object member : (List<?>) context.redis().command("LRANGE", queueKey, "0", "-1")) {
                String text = String.valueOf(member);
                try {
                    Integer waiter = byThread.get(Long.parseLong(text.substring(text.lastIndexOf(':') + 1)));
                    if (waiter != null) {
                        order.add(waiter);
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalStateException("A member of wait queue " + queueKey + " does not end with a thread id: " + text, e);
                }
            }
            return order;
        }

        /** Positions where the waiter served was not the one the queue listed there. */
        private static long outOfOrder(List<Integer> queueOrder, int[] servedOrder, int served) {
            long wrong = 0;
            for (int i = 0; i < served; i++) {
                if (i >= queueOrder.size() || queueOrder.get(i) != servedOrder[i]) {
                    wrong++;
                }
            }
            return wrong;
        }

        private static void awaitTermination(ExecutorService executor) {
            try {
                if (!executor.awaitTermination(SERVING_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    executor.shutdownNow();
                }
            } catch (InterruptedException e) {
                executor.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }
}
