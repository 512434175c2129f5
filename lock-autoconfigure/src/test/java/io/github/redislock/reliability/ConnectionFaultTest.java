package io.github.redislock.reliability;

import io.github.redislock.core.Internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Connection faults between lock clients and Redis, through a {@link FaultProxy}: every connection
 * dropped (and new ones refused for a while), latency beyond the command timeout, then healed.
 * Operations must fail with {@code LockRedisException} within their timeouts, and after healing
 * everything resumes with no stuck waiter and no subscription left behind.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConnectionFaultTest {

    static final long COMMAND_TIMEOUT_MILLIS = 500;
    /**
     * The waiting instances' watchdog timeout: a waiter looks at a held lock again on its own only every
     * ninth of it (10 s), so one that gets the lock within {@link #WOKEN_WITHIN_MILLIS} was woken by a message
     * or by its subscription coming back, not by its own retry.
     */
    static final Duration WAITER_WATCHDOG = Duration.ofSeconds(90);
    static final long WOKEN_WITHIN_MILLIS = 5000;
    static final List<ScenarioResult> results = new ArrayList<>();
    @AutoClose
    static final RedisServerProcess lockRedis = TestRedis.startNew();
    @AutoClose
    static final RedisServerProcess storeRedis = TestRedis.startNew();
    @AutoClose
    static final FaultProxy proxy = new FaultProxy(lockRedis.port());

    @AfterAll
    static void report() {
        ScenarioTable.write("connection-faults", results);
    }

    @BeforeEach
    void healed() {
        proxy.heal();
    }

    @Test
    @Order(1)
    void droppingEveryConnectionFailsOperationsWithinTheirTimeoutAndEverythingResumesAfterwards() throws Exception {
        ScenarioResult result = run("proxy: drop all connections",
                "every client connection closed, new ones refused until a lock operation failed, then healed", context -> {
                    long start = System.nanoTime();
                    proxy.dropAllAndRefuse();
                    awaitFailures(context, 2);
                    context.note("refused for " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
                    proxy.heal();
                    context.measureRecovery(null, start);
                });

        assertThat(result.failures()).as("lock operations failed during the outage").isPositive();
        assertThat(result.failureTypes()).containsOnly("LockRedisException");
    }

    @Test
    @Order(2)
    void latencyBeyondTheCommandTimeoutFailsOperationsWithinTheirTimeoutAndEverythingResumesAfterwards() throws Exception {
        ScenarioResult result = run("proxy: latency > command timeout",
                "every packet delayed by 2x the command timeout (" + 2 * COMMAND_TIMEOUT_MILLIS + " ms) until lock operations failed, then healed",
                context -> {
                    long start = System.nanoTime();
                    proxy.delay(2 * COMMAND_TIMEOUT_MILLIS);
                    awaitFailures(context, 2);
                    context.note("delayed for " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
                    proxy.heal();
                    context.measureRecovery(null, start);
                });

        assertThat(result.failures()).as("lock operations failed during the latency").isPositive();
        assertThat(result.failureTypes()).containsOnly("LockRedisException");
    }

    @Test
    @Order(3)
    void aWaiterWhoseReleaseMessageWasPublishedDuringAnOutageIsWokenWhenItsSubscriptionComesBack() throws Exception {
        try (LockerFixture holder = LockerFixture.connect(lockRedis.host(), lockRedis.port(), Duration.ofSeconds(30));
             LockerFixture waiter = LockerFixture.connect("127.0.0.1", proxy.port(), WAITER_WATCHDOG, Duration.ofMillis(COMMAND_TIMEOUT_MILLIS))) {
            holder.locker.lock("outage");
            ExecutorService thread = Executors.newSingleThreadExecutor();
            try {
                Future<Boolean> waiting = thread.submit(() -> waiter.locker.tryLock("outage", 20, -1, TimeUnit.SECONDS));
                await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("lock:{lock:outage}:released") == 1);

                proxy.dropAllAndRefuse();
                holder.locker.unlock("outage"); // the hand-off message is published while the waiter cannot hear it
                long healedAt = System.nanoTime();
                proxy.heal();

                takesTheLockSoon(waiting, healedAt, thread, waiter, "outage");
            } finally {
                thread.shutdownNow();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> Internals.subscribedChannelCount(waiter.locker) == 0
                    && subscribers("lock:{lock:outage}:released") == 0);
            assertThat(waiter.locker.waiterCount()).isZero();
        }
    }

    @Test
    @Order(5)
    void waitersOfOtherLocksStillHearReleasesAfterAnUnsubscribeFailedDuringAnOutage() throws Exception {
        try (LockerFixture holder = LockerFixture.connect(lockRedis.host(), lockRedis.port(), Duration.ofSeconds(30));
             LockerFixture waiter = LockerFixture.connect("127.0.0.1", proxy.port(), WAITER_WATCHDOG, Duration.ofMillis(COMMAND_TIMEOUT_MILLIS))) {
            holder.locker.lock("patient");
            holder.locker.lock("impatient");
            ExecutorService patientThread = Executors.newSingleThreadExecutor();
            ExecutorService impatientThread = Executors.newSingleThreadExecutor();
            try {
                Future<Boolean> patient = patientThread.submit(() -> waiter.locker.tryLock("patient", 30, -1, TimeUnit.SECONDS));
                Future<Boolean> impatient = impatientThread.submit(() -> waiter.locker.tryLock("impatient", 2, -1, TimeUnit.SECONDS));
                await().atMost(Duration.ofSeconds(5)).until(() -> waiter.locker.waiterCount() == 2);

                proxy.dropAllAndRefuse();
                // its wait ends during the outage (false, or LockRedisException from its last attempt): its unsubscribe cannot reach Redis
                await().atMost(Duration.ofSeconds(10)).until(impatient::isDone);
                await().atMost(Duration.ofSeconds(5)).until(() -> Internals.subscribedChannelCount(waiter.locker) == 1);
                proxy.heal();
                await().atMost(Duration.ofSeconds(10)).until(() -> subscribers("lock:{lock:patient}:released") == 1);
                holder.locker.unlock("patient");

                takesTheLockSoon(patient, System.nanoTime(), patientThread, waiter, "patient");
            } finally {
                patientThread.shutdownNow();
                impatientThread.shutdownNow();
                holder.locker.unlock("impatient");
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> Internals.subscribedChannelCount(waiter.locker) == 0
                    && subscribers("lock:{lock:patient}:released") == 0 && subscribers("lock:{lock:impatient}:released") == 0);
        }
    }

    @Test
    @Order(4)
    void anAcquisitionWhoseReplyTimedOutDoesNotTurnTheNextLockOfTheSameThreadIntoAReentrantOne() {
        try (LockerFixture instance = LockerFixture.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(30), Duration.ofMillis(COMMAND_TIMEOUT_MILLIS))) {
            instance.locker.tryLock("phantom"); // connects and loads the script
            instance.locker.unlock("phantom");
            proxy.delay(2 * COMMAND_TIMEOUT_MILLIS);
            assertThatThrownBy(() -> instance.locker.tryLock("phantom")).isInstanceOf(LockRedisException.class);
            // the timed-out script still ran: Redis counts a hold the thread never got to know about
            await().atMost(Duration.ofSeconds(5)).until(() -> Long.valueOf(1).equals(lockRedis.command("EXISTS", "lock:phantom")));
            proxy.heal();

            assertThat(instance.locker.tryLock("phantom")).isTrue();
            instance.locker.unlock("phantom");

            assertThat(lockRedis.command("EXISTS", "lock:phantom")).as("lock left in Redis after the thread's only unlock").isEqualTo(0L);
            assertThat(instance.locker.heldLockCount()).isZero();
            assertThat(instance.locker.watchdogState().watchedCount()).isZero();
        }
    }

    @Test
    @Order(6)
    void aWaitWhoseFirstTryTimedOutAfterQueuingWithdrawsItsPlace() {
        // The 30 s watchdog timeout keeps an abandoned place in the queue for 10 s.
        try (LockerFixture holder = LockerFixture.connect(lockRedis.host(), lockRedis.port(), Duration.ofSeconds(30));
             LockerFixture waiter = LockerFixture.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(30), Duration.ofMillis(COMMAND_TIMEOUT_MILLIS))) {
            waiter.locker.tryLock("queued-in-the-dark"); // connects and loads the script
            waiter.locker.unlock("queued-in-the-dark");
            holder.locker.lock("queued-in-the-dark");
            proxy.delay(2 * COMMAND_TIMEOUT_MILLIS);

            // the first try's reply times out, but the script runs on Redis and queues the waiter
            assertThatThrownBy(() -> waiter.locker.tryLock("queued-in-the-dark", 5, -1, TimeUnit.SECONDS)).isInstanceOf(LockRedisException.class);
            proxy.heal();

            await().atMost(Duration.ofSeconds(4)).until(() -> Long.valueOf(0).equals(lockRedis.command("EXISTS",
                    "lock:{lock:queued-in-the-dark}:wait-queue", "lock:{lock:queued-in-the-dark}:wait-deadlines")));
            holder.locker.unlock("queued-in-the-dark");
            assertThat(lockRedis.command("EXISTS", "lock:queued-in-the-dark")).as("handed to the wait that failed").isEqualTo(0L);
        }
    }

    /**
     * The waiting thread gets the lock within {@link #WOKEN_WITHIN_MILLIS} of {@code sinceNanos}, before its own
     * next look at the lock and far sooner than the holder's 30 s lease, then releases it.
     */
    private static void takesTheLockSoon(Future<Boolean> waiting, long sinceNanos, ExecutorService thread, LockerFixture waiter, String key)
            throws Exception {
        assertThat(waiting.get(WOKEN_WITHIN_MILLIS + 5000, TimeUnit.MILLISECONDS)).isTrue();
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sinceNanos);
        System.out.println("[connection-faults] '" + key + "' taken " + tookMillis + " ms after the outage ended or the release");
        assertThat(tookMillis).as("ms until the waiter got '%s'", key).isLessThan(WOKEN_WITHIN_MILLIS);
        thread.submit(() -> waiter.locker.unlock(key)).get(5, TimeUnit.SECONDS);
    }

    private static long subscribers(String channel) {
        return (Long) ((List<?>) lockRedis.command("PUBSUB", "NUMSUB", channel)).get(1);
    }

    private static void awaitFailures(SafetyRun.Context context, long failures) {
        long before = context.store.sumStats(context.workers.stream().map(w -> w.name).toList()).getOrDefault("failures", 0L);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> context.store.sumStats(context.workers.stream().map(w -> w.name).toList()).getOrDefault("failures", 0L) >= before + failures);
    }

    private static ScenarioResult run(String name, String injected, SafetyRun.Fault fault) throws Exception {
        SafetyRun run = new SafetyRun(name, injected, lockRedis, storeRedis).commandTimeoutMillis(COMMAND_TIMEOUT_MILLIS).through(proxy);
        return ScenarioTable.record(results, run.run(fault));
    }
}
