package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Lock;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.connection.CallerConnections;
import io.github.redislock.testsupport.RedisServerProcess;

import io.lettuce.core.RedisConnectionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The blocking callers' shared connection where it meets a server that stops answering or reading: no calling thread waits
 * past its timeout, whichever step of a call (the idle check's PING, the write, the reply) the server leaves hanging.
 */
class CallerConnectionSeamsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    /**
     * A failed try's two calls (the try, then the withdrawal of a try whose reply was lost), as on the factory's connection (2.2 s
     * there), well under three: a first call that waited for the idle check's PING to time out and then a whole timeout more did not.
     */
    private static final long FAILED_WITHIN_MILLIS = TIMEOUT.toMillis() * 26 / 10;

    @Test
    void eightThreadsTryingALockOnAPausedServerAfterAnIdleSpellWaitNoTimeoutOnTopOfTheirCalls() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30), TIMEOUT)) {
            instance.locker.lock("warm-up");
            instance.locker.unlock("warm-up");
            Thread.sleep(CallerConnections.IDLE_CHECK.toMillis()); // not a wait for anything: what the rule is about, an idle connection
            redis.pause();
            try {
                CountDownLatch ready = new CountDownLatch(8);
                onEightThreads("paused-", key -> {
                    ready.countDown();
                    ready.await();
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> instance.locker.tryLock(key)).isInstanceOf(LockRedisException.class)
                            .hasMessageContaining(instance.redisKey(key));
                    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms a tryLock took to fail, the timeout " + TIMEOUT)
                            .isLessThan(FAILED_WITHIN_MILLIS);
                }, () -> { });
            } finally {
                redis.resume();
            }
        }
    }

    @Test
    void aWriteToAServerThatStoppedReadingFailsWithinItsTimeout() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            LettuceConnectionFactory factory = LockerFixture.startedLettuce(redis.host(), redis.port(), TIMEOUT);
            CallerConnections connections = CallerConnections.of(factory, TIMEOUT);
            try {
                connections.call(bytes("PING"));
                redis.pause();
                byte[] more = new byte[32 << 20]; // more than the socket buffers on both ends hold: the write blocks
                CompletableFuture<Object> writing = CompletableFuture.supplyAsync(() -> connections.call(bytes("ECHO"), more));

                assertThatThrownBy(() -> writing.get(10, TimeUnit.SECONDS)).as("failed, not still writing 10 s after its 1 s timeout")
                        .hasCauseInstanceOf(RedisConnectionException.class);
            } finally {
                redis.resume();
                connections.close();
                factory.destroy();
            }
        }
    }

    @Test
    void aThreadThatOwesALateReplyTakesNoLockOnTheCallersConnectionWhileTheFactoryIsStopped() {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30), Duration.ofMillis(300))) {
            instance.locker.lock("warm-up");
            instance.locker.unlock("warm-up");
            redis.pause();
            try {
                assertThatThrownBy(() -> instance.locker.tryLock("late")).isInstanceOf(LockRedisException.class);
            } finally {
                redis.resume();
            }
            LettuceConnectionFactory factory = (LettuceConnectionFactory) instance.connectionFactory;
            factory.stop();
            try {
                assertThatThrownBy(() -> instance.locker.tryLock("while-stopped")).as("failed as on Lettuce's stopped connection")
                        .isInstanceOf(RuntimeException.class);
            } finally {
                factory.start();
            }
            assertThat(instance.redis.hasKey(instance.redisKey("while-stopped"))).as("a lock taken by a stopped context").isFalse();
        }
    }

    @Test
    void eightThreadsLockingThroughAServerKillAndRestartFailOnlyNamingTheirKeyAndLeaveNoLockBehind() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            assertEightThreadsLockThrough(redis, () -> {
                redis.kill();
                redis.restart();
            });
        }
    }

    @Test
    void eightThreadsLockingThroughAClientKillOfTheirConnectionFailOnlyNamingTheirKeyAndLeaveNoLockBehind() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            assertEightThreadsLockThrough(redis, () -> {
                Set<String> carrying = CallerConnectionsTest.clientsWhoseLastCommandWas(redis, "evalsha");
                assertThat(carrying).as("connections whose last command was a lock script").isNotEmpty();
                carrying.forEach(client -> redis.command("CLIENT", "KILL", "ID", client.substring("id=".length(), client.indexOf(' '))));
            });
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"plain", "fair", "read", "write", "multi"})
    void locksThatLateRepliesTookOnAPausedServerAreNeitherHeldNorRenewedAndEndByTheirLease(String kind) throws Exception {
        Duration lease = Duration.ofSeconds(2);
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), lease, Duration.ofMillis(300))) {
            Lock warmUp = lockOf(instance, kind, "warm-up"); // the scripts loaded: the late ones run, not fail with NOSCRIPT
            warmUp.lock();
            warmUp.unlock();
            redis.pause();
            try {
                onEightThreads("late-", key -> assertThatThrownBy(() -> lockOf(instance, kind, key).tryLock()).isInstanceOf(LockRedisException.class)
                        .hasMessageContaining(instance.redisKey(key)), () -> { });
            } finally {
                redis.resume();
            }

            assertThat(instance.locker.heldLockCount()).as("locks the Locker takes itself to hold").isZero();
            assertThat(instance.locker.watchdogState().watchedCount()).as("locks the watchdog renews").isZero();
            await().atMost(lease.plusSeconds(3)).until(() -> instance.redis.keys("*late-*").isEmpty());
        }
    }

    private static Lock lockOf(LockerFixture instance, String kind, String key) {
        return switch (kind) {
            case "plain" -> instance.locker.getLock(key);
            case "fair" -> instance.locker.getFairLock(key);
            case "read" -> instance.locker.getReadWriteLock(key).readLock();
            case "write" -> instance.locker.getReadWriteLock(key).writeLock();
            default -> instance.locker.getMultiLock(key, key + "-second");
        };
    }

    @Test
    void closingTheLockerWhileEightThreadsLockEndsEveryThreadsCallsAndLeavesNoLockBehind() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), lease, TIMEOUT)) {
            CountDownLatch busy = new CountDownLatch(8 * 20);
            CountDownLatch refusedAfterTheClose = new CountDownLatch(8);
            AtomicBoolean closed = new AtomicBoolean();
            onEightThreads("closing-", key -> {
                while (true) {
                    boolean after = closed.get();
                    try {
                        if (instance.locker.tryLock(key, 200, -1, TimeUnit.MILLISECONDS)) {
                            instance.locker.unlock(key);
                            busy.countDown();
                        }
                    } catch (RuntimeException e) { // refused once closed, or a call the close ended
                        if (after) {
                            refusedAfterTheClose.countDown();
                            return;
                        }
                    }
                }
            }, () -> {
                assertThat(busy.await(30, TimeUnit.SECONDS)).as("20 pairs each before the close").isTrue();
                instance.locker.close();
                closed.set(true);
                assertThat(refusedAfterTheClose.await(30, TimeUnit.SECONDS)).as("every thread refused after the close").isTrue();
            });

            await().atMost(lease.plusSeconds(3)).until(() -> instance.redis.keys("*closing-*").isEmpty());
        }
    }

    /**
     * Eight threads each lock and unlock a key of their own, 20 times before {@code fault} and until each did it again after:
     * every failure names its key, no call takes long past its timeout, and no lock is left once a lease has passed.
     */
    private static void assertEightThreadsLockThrough(RedisServerProcess redis, Runnable fault) throws Exception {
        Duration lease = Duration.ofSeconds(2);
        try (LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), lease, TIMEOUT)) {
            CountDownLatch busy = new CountDownLatch(8 * 20);
            CountDownLatch pairAfterTheRestart = new CountDownLatch(8);
            AtomicBoolean restarted = new AtomicBoolean();
            AtomicBoolean done = new AtomicBoolean();
            List<String> wrong = new CopyOnWriteArrayList<>();
            try {
                onEightThreads("restart-", key -> {
                    boolean counted = false;
                    while (!done.get()) {
                        boolean after = restarted.get();
                        long start = System.nanoTime();
                        try {
                            if (instance.locker.tryLock(key, 200, -1, TimeUnit.MILLISECONDS)) {
                                instance.locker.unlock(key);
                                busy.countDown();
                                if (after && !counted) {
                                    counted = true;
                                    pairAfterTheRestart.countDown();
                                }
                            }
                        } catch (RuntimeException e) { // a lock lost with the killed server's data among them
                            if (!String.valueOf(e.getMessage()).contains(instance.redisKey(key))) {
                                wrong.add("not naming " + key + ": " + e);
                            }
                        }
                        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                        if (took > 6 * TIMEOUT.toMillis()) {
                            wrong.add(key + ": a tryLock and unlock took " + took + " ms");
                        }
                    }
                }, () -> {
                    assertThat(busy.await(30, TimeUnit.SECONDS)).as("20 pairs each before the fault").isTrue();
                    fault.run();
                    restarted.set(true);
                    assertThat(pairAfterTheRestart.await(30, TimeUnit.SECONDS)).as("every thread locked and unlocked again after the fault").isTrue();
                    done.set(true);
                });
            } finally {
                done.set(true);
            }

            assertThat(wrong).isEmpty();
            await().atMost(lease.plusSeconds(3)).until(() -> instance.redis.keys(LockerFixture.PREFIX + "restart-*").isEmpty());
        }
    }

    /** What one of {@link #onEightThreads}'s threads does with its key. */
    private interface OnItsKey {
        void run(String key) throws Exception;
    }

    /** What the test's own thread does meanwhile. */
    private interface Meanwhile {
        void run() throws Exception;
    }

    /**
     * Runs {@code work} on eight threads at once, each with a key of its own ({@code prefix} and the thread's number), and
     * {@code meanwhile} on this one; returns once the eight ended, each within 30 s, and fails with the first one's failure.
     */
    private static void onEightThreads(String prefix, OnItsKey work, Meanwhile meanwhile) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                String key = prefix + t;
                running.add(threads.submit(() -> {
                    work.run(key);
                    return null;
                }));
            }
            meanwhile.run();
            for (Future<?> thread : running) {
                thread.get(30, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
