package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The multi-process safety checker under process and server faults: two worker JVMs of two threads
 * each share two locks on one Redis (watchdog timeout 1.5 s) while a fault is injected; see {@link SafetyRun} for
 * what is checked. Every scenario also has to pass the checks that hold for all of them: no silent
 * overlap or lost update, no stuck worker, nothing left held or subscribed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SafetyCheckerTest {

    static final List<ScenarioResult> results = new ArrayList<>();
    static RedisServerProcess lockRedis;
    static RedisServerProcess storeRedis;

    @BeforeAll
    static void startRedis() {
        lockRedis = TestRedis.startNew();
        storeRedis = TestRedis.startNew();
    }

    @AfterAll
    static void stopRedisAndReport() {
        lockRedis.stop();
        storeRedis.stop();
        ScenarioTable.write("safety-faults", results);
    }

    @Test
    @Order(1)
    void withoutFaultsNoCriticalSectionOverlapsAndNoUpdateIsLost() throws Exception {
        ScenarioResult result = run("baseline", "nothing", context -> context.runLoad(60));

        assertThat(result.violations()).isZero();
        assertThat(result.lostUpdates()).isZero();
        assertThat(result.failures()).isZero();
    }

    @Test
    @Order(2)
    void aWorkerKilledWhileHoldingALockHoldsUpTheOthersOnlyUntilItsWatchdogTimeout() throws Exception {
        SafetyRun[] run = new SafetyRun[1];
        ScenarioResult result = run("kill -9 of a holder", "`kill -9` of a worker inside its critical section", run, context -> {
            WorkerProcess victim = context.workers.get(0);
            String key = context.holdInside(victim);
            long killed = System.nanoTime();
            context.kill(victim);
            context.measureRecovery(key, killed);
            context.note("killed " + victim.name + " holding " + key);
        });

        assertThat(result.violations()).isZero();
        assertThat(result.lostUpdates()).isZero();
        assertThat(result.recoveryMillis()).as("time until another worker completed a section of the dead worker's key")
                .isLessThan(run[0].watchdogMillis() + 5000);
    }

    @Test
    @Order(3)
    void aWorkerPausedPastItsLeaseIsToldItLostTheLockAndItsOverlapIsNeverSilent() throws Exception {
        ScenarioResult result = run("SIGSTOP past the lease", "`kill -STOP` of a worker inside its critical section for 2x the watchdog timeout, then `kill -CONT`",
                context -> {
                    WorkerProcess victim = context.workers.get(0);
                    String key = context.holdInside(victim);
                    long paused = System.nanoTime();
                    victim.pause();
                    try {
                        context.measureRecovery(key, paused); // another worker took the expired lock and completed a section
                        context.runLoad(5);
                    } finally {
                        victim.resume();
                        context.store.thaw(victim.name);
                    }
                    context.note("paused " + victim.name + " holding " + key);
                });

        assertThat(result.losses()).as("the paused worker learns it lost its lock")
                .anyMatch(loss -> loss.startsWith("w0.") && (loss.endsWith("|LockLostException") || loss.endsWith("|LockLostEvent")));
        assertThat(result.violations()).as("the overlap with the paused worker is seen").isPositive();
        assertThat(result.detectedViolations()).isEqualTo(result.violations());
        if (result.fencingAvailable()) {
            assertThat(result.fencedWrites()).as("the paused worker's late write is rejected").isPositive();
            assertThat(result.lostUpdates()).isZero();
        }
    }

    @Test
    @Order(4)
    void aRedisRestartWithoutPersistenceLosesLocksVisiblyAndNothingHangs() throws Exception {
        SafetyRun[] run = new SafetyRun[1];
        long[] restartMillis = new long[1];
        ScenarioResult result = run("Redis restart", "lock Redis stopped and started again, empty (no persistence)", run, context -> {
            long start = System.nanoTime();
            context.lockRedis().restart();
            restartMillis[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            context.note("restart took " + restartMillis[0] + " ms");
            context.measureRecovery(null, start);
        });

        assertThat(result.detectedViolations()).isEqualTo(result.violations());
        // Once Redis is back, an operation under way ends within the failure bound and the next one finds the locks free.
        assertThat(result.recoveryMillis()).as("ms until a critical section completed; the restart itself took %d ms", restartMillis[0])
                .isLessThan(restartMillis[0] + run[0].failureBoundMillis());
    }

    @Test
    @Order(5)
    void scriptFlushUnderLoadBreaksNothing() throws Exception {
        AtomicInteger flushes = new AtomicInteger();
        ScenarioResult result = run("SCRIPT FLUSH under load", "`SCRIPT FLUSH` every 20 ms while 60 sections run", context -> {
            AtomicBoolean flushing = new AtomicBoolean(true);
            ExecutorService flusher = Executors.newSingleThreadExecutor();
            Future<?> done = flusher.submit(() -> {
                while (flushing.get()) {
                    context.lockRedis().command("SCRIPT", "FLUSH");
                    flushes.incrementAndGet();
                    Thread.sleep(20);
                }
                return null;
            });
            try {
                context.runLoad(60);
            } finally {
                flushing.set(false);
                done.get(10, TimeUnit.SECONDS);
                flusher.shutdownNow();
            }
            context.note(flushes.get() + " flushes");
        });

        assertThat(flushes.get()).isPositive();
        assertThat(result.violations()).isZero();
        assertThat(result.lostUpdates()).isZero();
        assertThat(result.failures()).as("failed lock operations").isZero();
    }

    private static ScenarioResult run(String name, String injected, SafetyRun.Fault fault) throws Exception {
        return run(name, injected, new SafetyRun[1], fault);
    }

    private static ScenarioResult run(String name, String injected, SafetyRun[] holder, SafetyRun.Fault fault) throws Exception {
        holder[0] = new SafetyRun(name, injected, lockRedis, storeRedis);
        ScenarioResult result = holder[0].run(fault);
        return ScenarioTable.record(results, result);
    }
}
