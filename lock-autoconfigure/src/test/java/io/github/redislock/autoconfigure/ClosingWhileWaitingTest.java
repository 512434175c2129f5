package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.redislock.AsyncLocker;
import io.github.redislock.FencingTokens;
import io.github.redislock.LockHandle;
import io.github.redislock.Locker;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A rolling restart: instance B waits for a lock instance A holds, and B's application context closes.
 * B's place in the lock's wait queue must go with it, while its connection factory still works: left
 * behind, A's unlock would hand the lock to B's dead wait, and the key would stay taken for the claim
 * lease (the watchdog timeout, 30 s by default).
 */
class ClosingWhileWaitingTest {

    /** One application instance; the watchdog timeout is the default, as in production. */
    private final ApplicationContextRunner instance = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class, RedisLockAsyncAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port(), LockerFixture.CALLER_CONNECTIONS_SETTING);

    private final String key = "closing-while-waiting-" + UUID.randomUUID();
    private final List<String> redisKeys = Internals.plainLockKeys("lock:", key);
    private final RedisServerProcess redis = TestRedis.shared();

    @AfterEach
    void removeWhatAFailedTestLeft() {
        redis.command("DEL", lockHash(), waitQueue(), waitDeadlines());
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void anInstanceClosedWhileAThreadWaitsLeavesNoQueueEntryAndTheHoldersUnlockFreesTheKey(CapturedOutput output) {
        closeAnInstanceWhileItWaits(waiter -> lockInThread(waiter.getBean(Locker.class)), "Locker is closed", output);
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void anInstanceClosedWhileAnAsyncAcquisitionWaitsLeavesNoQueueEntryAndTheHoldersUnlockFreesTheKeyAndTheWaitFailsNamingTheKey(CapturedOutput output) {
        closeAnInstanceWhileItWaits(waiter -> waiter.getBean(AsyncLocker.class).acquire(key, null, null).toCompletableFuture(),
                "AsyncLocker is closed (its application context has shut down) while waiting for '" + key + "'", output);
    }

    /**
     * Instance A holds the lock, instance B starts a wait for it and closes; then B's queue place must be
     * gone, A's unlock must free the key, and B's wait must have failed saying its locker closed.
     */
    private void closeAnInstanceWhileItWaits(Function<ApplicationContext, CompletableFuture<?>> startWait, String closedMessage,
                                             CapturedOutput output) {
        instance.run(holder -> {
            Locker holding = holder.getBean(Locker.class);
            holding.lock(key);
            AtomicReference<CompletableFuture<?>> waited = new AtomicReference<>();
            instance.run(waiter -> {
                waited.set(startWait.apply(waiter));
                awaitQueued();

                waiter.close();
            });

            assertThat(output).as("withdrawn through a working connection factory, and closed only once")
                    .doesNotContain("has been STOPPED").doesNotContain("Could not withdraw");
            assertThat((List<?>) redis.command("LRANGE", waitQueue(), "0", "-1")).as("wait queue %s", waitQueue()).isEmpty();
            assertThat((List<?>) redis.command("ZRANGE", waitDeadlines(), "0", "-1")).as("wait deadlines %s", waitDeadlines()).isEmpty();

            holding.unlock(key);
            assertThat(holding.tryLock(key, 1, Locker.WATCHDOG_LEASE, TimeUnit.SECONDS))
                    .as("the key free again within a second of the holder's unlock (its owners now: %s)", redis.command("HKEYS", lockHash())).isTrue();
            holding.unlock(key);
            assertFailsWithin(Duration.ofSeconds(10), waited.get(), closedMessage);
        });
    }

    @Test
    void aThreadStillWaitingWhenItsInstanceClosesFailsAtOnceSayingTheLockerIsClosed() {
        instance.run(holder -> {
            Locker holding = holder.getBean(Locker.class);
            holding.lock(key);
            instance.run(waiter -> {
                RedisLocker waiting = waiter.getBean(RedisLocker.class);
                CompletableFuture<Void> waited = lockInThread(waiting);
                // Parked for a refresh period of its queue place: a ninth of the watchdog timeout, 3.3 s by default.
                await("the waiting thread parked").atMost(Duration.ofSeconds(10)).until(() -> Internals.parkedWaiters(waiting, key) == 1);

                waiter.close();
                assertFailsWithin(Duration.ofSeconds(1), waited, "Locker is closed");
            });
            holding.unlock(key);
        });
    }

    @Test
    void aContextStoppedAndStartedAgainKeepsItsLockers() {
        instance.run(context -> {
            Locker locker = context.getBean(Locker.class);
            context.stop();
            context.start();

            locker.lock(key);
            CompletableFuture<LockHandle> waiting = context.getBean(AsyncLocker.class).acquire(key, Duration.ofSeconds(10), null).toCompletableFuture();
            awaitQueued();
            locker.unlock(key);
            LockHandle handle = waiting.get(10, TimeUnit.SECONDS);
            context.getBean(AsyncLocker.class).release(handle).toCompletableFuture().get(10, TimeUnit.SECONDS);
        });
    }

    @Test
    void aContextStoppedAndStartedAgainStillHandsALockToAWaitingThread() {
        instance.run(context -> {
            Locker locker = stoppedAndStarted(context);
            handsTheLockToAWaitingThread(locker);
        });
    }

    @Test
    void aContextOnJedisStoppedAndStartedAgainHandsALockToAWaitingThreadAndAnAsyncWait() {
        instance.withPropertyValues("spring.data.redis.client-type=jedis").run(context -> {
            Locker locker = stoppedAndStarted(context);
            handsTheLockToAWaitingThread(locker);

            locker.lock(key);
            CompletableFuture<LockHandle> asyncWait = context.getBean(AsyncLocker.class).acquire(key, Duration.ofSeconds(10), null).toCompletableFuture();
            awaitQueued();
            locker.unlock(key);
            LockHandle handle = asyncWait.get(10, TimeUnit.SECONDS);
            context.getBean(AsyncLocker.class).release(handle).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(locker.isLocked(key)).isFalse();
        });
    }

    /**
     * A wait that started before the stop hears the holder's unlock after the start: the stop closed the
     * connection its hand-off message would come on, and the start opens it again. Without it, the wait
     * would only find its lock at its next look (a ninth of the watchdog timeout, 3.3 s by default), and
     * the key would stay handed to it, unused, until then.
     */
    @Test
    void aThreadWaitingAcrossAStopAndStartIsHandedTheLockAsSoonAsItsHolderUnlocks() {
        instance.run(context -> {
            Locker locker = context.getBean(Locker.class);
            RedisLocker waitingLocker = context.getBean(RedisLocker.class);
            locker.lock(key);
            CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
                locker.lock(key);
                locker.unlock(key);
            });
            await("the waiting thread parked").atMost(Duration.ofSeconds(10)).until(() -> Internals.parkedWaiters(waitingLocker, key) == 1);

            context.stop();
            context.start();
            locker.unlock(key);

            assertThat(waiting).as("handed the lock at once, not at its next look").succeedsWithin(Duration.ofMillis(1500));
        });
    }

    @Test
    void anAsyncWaitOnJedisWaitingAcrossAStopAndStartIsHandedTheLockAsSoonAsItsHolderUnlocks() {
        instance.withPropertyValues("spring.data.redis.client-type=jedis").run(context -> {
            Locker locker = context.getBean(Locker.class);
            AsyncLocker async = context.getBean(AsyncLocker.class);
            locker.lock(key);
            CompletableFuture<LockHandle> waiting = async.acquire(key, Duration.ofSeconds(20), null).toCompletableFuture();
            await("the async wait listening").atMost(Duration.ofSeconds(10)).until(() -> context.getBean(RedisLocker.class).waiterCount() == 1);

            context.stop();
            context.start();
            locker.unlock(key);

            assertThat(waiting).as("handed the lock at once, not at its next look").succeedsWithin(Duration.ofMillis(1500));
            async.release(waiting.get()).toCompletableFuture().get(10, TimeUnit.SECONDS);
        });
    }

    /**
     * A hold taken before a stop and start, whose token is first asked for after them (the blocking locker's everyday
     * acquisition draws none), gets one, and the async wait handed the lock next gets a higher one, on both clients.
     */
    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "jedis"})
    void aTokenFirstAskedAfterAStopAndStartIsDrawnAndTheAsyncWaitHandedTheLockNextGetsAHigherOne(String client) {
        instance.withPropertyValues("spring.data.redis.client-type=" + client).run(context -> {
            Locker locker = context.getBean(Locker.class);
            AsyncLocker async = context.getBean(AsyncLocker.class);
            locker.lock(key);
            CompletableFuture<LockHandle> waiting = async.acquire(key, Duration.ofSeconds(20), null).toCompletableFuture();
            awaitQueued();

            context.stop();
            context.start();
            long holders = FencingTokens.current(key);
            assertThat(locker.fencingToken(key)).as("the hold's token, kept from its first ask").isEqualTo(holders);
            locker.unlock(key);

            LockHandle handle = waiting.get(10, TimeUnit.SECONDS);
            assertThat(handle.fencingToken()).as("the next holder's token").isGreaterThan(holders);
            async.release(handle).toCompletableFuture().get(10, TimeUnit.SECONDS);
        });
    }

    /** The context's Locker, after {@code context.stop()} and {@code context.start()}. */
    private static Locker stoppedAndStarted(ConfigurableApplicationContext context) {
        Locker locker = context.getBean(Locker.class);
        context.stop();
        context.start();
        return locker;
    }

    /** A thread waiting for the key is handed it when the holder unlocks, and unlocks it in turn. */
    private void handsTheLockToAWaitingThread(Locker locker) {
        locker.lock(key);
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            locker.lock(key);
            locker.unlock(key);
        });
        awaitQueued();
        locker.unlock(key);
        assertThat(waiting).as("the waiting thread handed the lock, then unlocking it").succeedsWithin(Duration.ofSeconds(5));
        assertThat(locker.isLocked(key)).isFalse();
    }

    /** {@code locker.lock(key)} on a thread of its own: completes when it returns, fails with what it throws. */
    private CompletableFuture<Void> lockInThread(Locker locker) {
        CompletableFuture<Void> locked = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                locker.lock(key);
                locked.complete(null);
            } catch (Throwable e) {
                locked.completeExceptionally(e);
            }
        }, "waiting-in-closing-instance");
        thread.setDaemon(true);
        thread.start();
        return locked;
    }

    private static void assertFailsWithin(Duration within, CompletableFuture<?> wait, String closedMessage) {
        assertThat(wait).as("the wait of the closed instance").failsWithin(within)
                .withThrowableOfType(ExecutionException.class).havingCause()
                .isInstanceOf(IllegalStateException.class).withMessageContaining(closedMessage);
    }

    private void awaitQueued() {
        await("a place in the wait queue of " + key).atMost(Duration.ofSeconds(10))
                .until(() -> (Long) redis.command("LLEN", waitQueue()) > 0);
    }

    private String lockHash() {
        return redisKeys.get(0);
    }

    private String waitQueue() {
        return redisKeys.get(1);
    }

    private String waitDeadlines() {
        return redisKeys.get(2);
    }
}
