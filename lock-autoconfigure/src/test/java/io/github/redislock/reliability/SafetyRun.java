package io.github.redislock.reliability;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerProcess;

import org.awaitility.core.ConditionTimeoutException;

/**
 * One scenario of the safety checker: several {@link SafetyWorker} JVMs share the locks on the lock
 * Redis while a fault is injected, then the checker reads the store and judges the run.
 *
 * <p>The checks: (A) a critical section never has two occupants, unless the library told every
 * occupant but one that the very hold it was inside with had been lost (then the overlap is
 * "detected", or "detected and fenced" when the fencing store rejected the late write): a loss of an
 * earlier or a later hold of the same thread, or of another thread, explains nothing; (B) every key's counter equals its completed sections (a lost update
 * must be explained the same way); (C) with fencing tokens, a late holder's write is rejected (tokens
 * accepted never decrease); and after the run no worker is stuck, none still holds, waits for or
 * subscribes to anything, and Redis has no subscriber on any release channel.
 */
final class SafetyRun {

    /** What a scenario does to the system while the workers run. */
    @FunctionalInterface
    interface Fault {
        void inject(Context context) throws Exception;
    }

    static final int KEYS = 2;

    private final String name;
    private final String injected;
    private final RedisServerProcess lockRedis;
    private final RedisServerProcess storeRedis;
    private int workerCount = 2;
    private int threadsPerWorker = 2;
    private long watchdogMillis = 1500;
    private long commandTimeoutMillis = 1000;
    private long holdMillis = 5;
    private long waitMillis = 2000;
    private FaultProxy proxy;

    SafetyRun(String name, String injected, RedisServerProcess lockRedis, RedisServerProcess storeRedis) {
        this.name = name;
        this.injected = injected;
        this.lockRedis = lockRedis;
        this.storeRedis = storeRedis;
    }

    SafetyRun commandTimeoutMillis(long millis) {
        this.commandTimeoutMillis = millis;
        return this;
    }

    /** Workers reach Redis through this proxy instead of directly. */
    SafetyRun through(FaultProxy proxy) {
        this.proxy = proxy;
        return this;
    }

    long watchdogMillis() {
        return watchdogMillis;
    }

    /** The longest a failing lock operation may take: the wait plus a few command timeouts, generously (busy CI machines). */
    long failureBoundMillis() {
        return waitMillis + 3 * commandTimeoutMillis + 2000;
    }

    ScenarioResult run(Fault fault) throws Exception {
        lockRedis.flushAll();
        List<WorkerProcess> workers = new ArrayList<>();
        try (SafetyStore store = SafetyStore.connect(storeRedis.port())) {
            store.reset();
            Path logs = Path.of("target", "reliability", "workers", name.replaceAll("[^A-Za-z0-9]+", "-"));
            int lockPort = proxy != null ? proxy.port() : lockRedis.port();
            long maxRunMillis = 60_000;
            for (int i = 0; i < workerCount; i++) {
                workers.add(WorkerProcess.start("w" + i, logs, List.of(Integer.toString(lockPort), Integer.toString(storeRedis.port()), "w" + i,
                        Integer.toString(KEYS), Long.toString(watchdogMillis), Long.toString(commandTimeoutMillis),
                        Long.toString(holdMillis), Long.toString(waitMillis), Long.toString(maxRunMillis), Integer.toString(threadsPerWorker))));
            }
            Context context = new Context(store, workers);
            try {
                awaitQuietly(Duration.ofSeconds(45), () -> workers.stream().allMatch(w -> count(store.stats(w.name), "sections") > 0),
                        () -> "every worker to complete a critical section", workers);
                context.runLoad(30);
                fault.inject(context);
                context.runLoad(30);
                store.requestStop();
                return finish(store, workers, context);
            } finally {
                workers.forEach(WorkerProcess::destroy);
            }
        }
    }

    private long subscribers(String channel) {
        return (Long) ((List<?>) lockRedis.command("PUBSUB", "NUMSUB", channel)).get(1);
    }

    private ScenarioResult finish(SafetyStore store, List<WorkerProcess> workers, Context context) {
        List<String> problems = new ArrayList<>(context.problems);
        List<String> names = workers.stream().map(w -> w.name).toList();
        Map<String, Map<String, String>> idle = new LinkedHashMap<>();
        for (WorkerProcess worker : workers) {
            if (context.killed.contains(worker.name)) {
                continue;
            }
            try {
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).until(() -> !store.idleInfo(worker.name).isEmpty());
                idle.put(worker.name, store.idleInfo(worker.name));
            } catch (ConditionTimeoutException e) {
                problems.add("worker " + worker + " is stuck: it did not finish its loop within 20 s of the stop request; log:\n" + worker.logTail());
            }
        }
        idle.forEach((worker, report) -> report.forEach((what, value) -> {
            if (!"0".equals(value)) {
                problems.add("worker " + worker + " left " + value + " " + what + " behind after the run");
            }
        }));
        for (int i = 0; i < KEYS; i++) {
            String channel = SafetyStore.LOCK_PREFIX + "{" + SafetyStore.LOCK_PREFIX + "k" + i + "}:released";
            try { // a worker that reports no channel has sent its UNSUBSCRIBE; Redis takes it when it reads that connection
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> subscribers(channel) == 0);
            } catch (ConditionTimeoutException e) {
                problems.add("Redis still has " + subscribers(channel) + " subscriber(s) on " + channel + " 5 s after the run");
            }
        }
        store.requestExit();
        for (WorkerProcess worker : workers) {
            if (!context.killed.contains(worker.name) && !worker.awaitExit(20)) {
                problems.add("worker " + worker + " did not exit");
            }
        }

        List<String> losses = store.list("losses");
        List<String> violations = store.list("violations");
        int explainedViolations = 0;
        for (String violation : violations) {
            String[] parts = violation.split("\\|"); // key|entrant|occupants, each a hold
            Set<String> inside = new HashSet<>(List.of(parts[2].split(",")));
            inside.add(parts[1]);
            Set<String> told = lostHolds(losses, parts[0], inside);
            if (told.size() >= inside.size() - 1) {
                explainedViolations++;
            } else {
                inside.removeAll(told);
                problems.add("SILENT VIOLATION: " + parts[1] + " entered the critical section of " + parts[0] + " (holds inside: " + parts[2]
                        + "), and more than one of " + inside + " was never reported lost");
            }
        }
        long sections = 0;
        long lostUpdates = 0;
        for (int i = 0; i < KEYS; i++) {
            String key = "k" + i;
            long keySections = store.sections(key);
            long counter = store.counter(key);
            sections += keySections;
            if (counter > keySections) {
                problems.add("counter of " + key + " is " + counter + ", more than its " + keySections + " completed sections");
            } else if (counter < keySections) {
                lostUpdates += keySections - counter;
                if (losses.stream().noneMatch(loss -> loss.split("\\|")[1].equals(key))) {
                    problems.add("SILENT LOST UPDATE: " + key + " lost " + (keySections - counter) + " update(s) and no worker was told it had lost the lock");
                }
            }
        }
        Map<String, Long> stats = store.sumStats(names);
        boolean fencing = "true".equals(store.startedInfo(names.get(0)).get("fencing"));
        List<String> fenced = store.list("fenced");
        if (fencing && lostUpdates > 0) {
            problems.add("fencing tokens are available, yet " + lostUpdates + " update(s) were lost: a late write was not rejected");
        }
        long maxFailure = stats.getOrDefault("maxFailureMillis", 0L);
        if (maxFailure > failureBoundMillis()) {
            problems.add("a failing lock operation took " + maxFailure + " ms, more than the bound of " + failureBoundMillis() + " ms");
        }
        List<String> failureTypes = store.failureTypes();
        for (String type : failureTypes) {
            if (!type.equals("LockRedisException")) {
                problems.add("a lock operation failed with " + type + " instead of LockRedisException: " + store.list("failures"));
            }
        }
        return new ScenarioResult(name, injected, workers.size() + " x " + threadsPerWorker, sections, violations.size(), explainedViolations, lostUpdates,
                fencing, fenced.size(), losses, stats.getOrDefault("failures", 0L), failureTypes, maxFailure,
                context.recoveryMillis, context.notes, problems, store.list("failures"));
    }

    /** Those of {@code holds} whose lock on {@code key} was reported lost. Only the one legitimate holder of an overlap may be missing. */
    private static Set<String> lostHolds(List<String> losses, String key, Set<String> holds) {
        Set<String> lost = new HashSet<>();
        losses.stream().map(loss -> loss.split("\\|")).filter(loss -> loss[1].equals(key) && holds.contains(loss[0])).forEach(loss -> lost.add(loss[0]));
        return lost;
    }

    private static long count(Map<String, String> stats, String field) {
        String value = stats.get(field);
        return value == null ? 0 : Long.parseLong(value);
    }

    private static void awaitQuietly(Duration atMost, java.util.concurrent.Callable<Boolean> condition, java.util.function.Supplier<String> what,
                                     List<WorkerProcess> workers) {
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(condition);
        } catch (ConditionTimeoutException e) {
            StringBuilder logs = new StringBuilder();
            workers.forEach(w -> logs.append("\n--- ").append(w).append(w.isAlive() ? "" : " (exited)").append(":\n").append(w.logTail()));
            throw new AssertionError("Timed out after " + atMost.toSeconds() + " s waiting for " + what.get() + logs, e);
        }
    }

    /** What a fault sees of the run. */
    final class Context {

        final SafetyStore store;
        final List<WorkerProcess> workers;
        final Set<String> killed = new HashSet<>();
        final List<String> notes = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        Long recoveryMillis;

        Context(SafetyStore store, List<WorkerProcess> workers) {
            this.store = store;
            this.workers = workers;
        }

        RedisServerProcess lockRedis() {
            return lockRedis;
        }

        FaultProxy proxy() {
            return proxy;
        }

        /** Lets the workers complete {@code sections} more critical sections. */
        void runLoad(int sections) {
            long target = store.totalSections(KEYS) + sections;
            awaitQuietly(Duration.ofSeconds(30), () -> store.totalSections(KEYS) >= target,
                    () -> sections + " more critical sections (" + store.totalSections(KEYS) + " of " + target + ")", workers);
        }

        /** Makes {@code worker} stop inside its next critical section, holding the lock; returns the key it holds. */
        String holdInside(WorkerProcess worker) {
            store.requestFreeze(worker.name);
            awaitQuietly(Duration.ofSeconds(20), () -> store.frozenKey(worker.name) != null,
                    () -> worker + " to enter a critical section and stay there", workers);
            return store.frozenKey(worker.name);
        }

        void kill(WorkerProcess worker) {
            worker.kill();
            killed.add(worker.name);
            store.removeOccupants(worker.name, KEYS); // a dead process is in no critical section
        }

        /** Waits until a critical section of {@code key} (or of any key, when null) completes, and records the time since {@code faultStartNanos}. */
        void measureRecovery(String key, long faultStartNanos) {
            long before = key == null ? store.totalSections(KEYS) : store.sections(key);
            awaitQuietly(Duration.ofSeconds(30), () -> (key == null ? store.totalSections(KEYS) : store.sections(key)) > before,
                    () -> "a critical section " + (key == null ? "" : "of " + key + " ") + "to complete after the fault", workers);
            recoveryMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - faultStartNanos);
        }

        void note(String note) {
            notes.add(note);
        }
    }
}
