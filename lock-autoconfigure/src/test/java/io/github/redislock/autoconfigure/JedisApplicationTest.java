package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockHandle;
import io.github.redislock.Locker;
import io.github.redislock.ReactiveLocker;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * An application on Spring Boot's other Redis client ({@code spring.data.redis.client-type=jedis}):
 * every kind of locker, waits woken by release messages, the annotation and the watchdog. Jedis
 * subscribes only synchronously and runs a subscription's read loop on the thread that subscribed;
 * none of the application's threads may be that thread.
 *
 * <p>A long watchdog timeout keeps a waiter's own retries far apart (a queued waiter refreshes its place
 * every 3.3 s): a waiter that holds the lock within {@link LockerFixture#WOKEN_WITHIN} of the release
 * was woken by the message.
 */
class JedisApplicationTest {

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
                    RedisLockAsyncAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withUserConfiguration(Ledger.Configuration.class)
            .withPropertyValues("spring.data.redis.client-type=jedis", "spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port(), "redis-lock.watchdog-timeout=30s");

    @Test
    void aBlockedThreadIsWokenByTheReleaseMessage() {
        application.run(context -> {
            assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
            Locker locker = context.getBean(Locker.class);
            String key = "jedis-" + UUID.randomUUID();
            locker.lock(key);
            CompletableFuture<Long> acquiredAt = takeAndReleaseOnAnotherThread(locker, key);
            awaitWaiters(context, acquiredAt);
            long releasedAt = System.nanoTime();
            locker.unlock(key);
            assertWokenByTheRelease(releasedAt, acquiredAt);
        });
    }

    /**
     * Jedis does not reconnect a subscription: redis-lock opens a new pub/sub connection in place of one
     * that broke, carrying the channels still waited on, so the release still wakes the waiter.
     */
    @Test
    void aWaitIsWokenByTheReleaseAfterThePubSubConnectionWasKilled() {
        application.run(context -> {
            Locker locker = context.getBean(Locker.class);
            String key = "jedis-" + UUID.randomUUID();
            String channel = "lock:{lock:" + key + "}:released";
            locker.lock(key);
            CompletableFuture<Long> acquiredAt = takeAndReleaseOnAnotherThread(locker, key);
            awaitWaiters(context, acquiredAt);
            RedisTemplate<String, String> redis = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
            assertThat(redis.execute((RedisCallback<Object>) connection -> connection.execute("CLIENT", bytes("KILL"), bytes("TYPE"), bytes("pubsub"))))
                    .as("pub/sub connections killed").isNotEqualTo(0L);

            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                    .until(() -> redis.execute((RedisCallback<Long>) connection -> (Long) ((List<?>) connection.execute("PUBSUB", bytes("NUMSUB"), bytes(channel))).get(1)) == 1);
            long releasedAt = System.nanoTime();
            locker.unlock(key);
            assertWokenByTheRelease(releasedAt, acquiredAt);
        });
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anAsyncWaitIsWokenByTheReleaseMessage() {
        application.run(context -> {
            AsyncLocker async = context.getBean(AsyncLocker.class);
            assertAHandleWaitIsWokenByTheRelease(context, (key, wait) -> async.acquire(key, wait, null).toCompletableFuture(),
                    handle -> async.release(handle).toCompletableFuture());
        });
    }

    @Test
    void aReactiveWaitIsWokenByTheReleaseMessage() {
        application.run(context -> {
            ReactiveLocker reactive = context.getBean(ReactiveLocker.class);
            assertAHandleWaitIsWokenByTheRelease(context, (key, wait) -> reactive.acquire(key, wait, null).toFuture(),
                    handle -> reactive.release(handle).toFuture());
        });
    }

    /** A handle holds a key, another waits for it, and the first one's release wakes the wait. */
    private static void assertAHandleWaitIsWokenByTheRelease(ApplicationContext context,
                                                             BiFunction<String, Duration, CompletableFuture<LockHandle>> acquire,
                                                             Function<LockHandle, CompletableFuture<Void>> release) throws Exception {
        String key = "jedis-" + UUID.randomUUID();
        LockHandle holder = acquire.apply(key, Duration.ZERO).get(5, TimeUnit.SECONDS);
        CompletableFuture<Long> acquiredAt = acquire.apply(key, Duration.ofSeconds(10)).thenCompose(handle -> {
            long at = System.nanoTime();
            return release.apply(handle).thenApply(released -> at);
        });
        awaitWaiters(context, acquiredAt);
        long releasedAt = System.nanoTime();
        release.apply(holder).get(5, TimeUnit.SECONDS);
        assertWokenByTheRelease(releasedAt, acquiredAt);
    }

    @Test
    void anAnnotatedMethodRunsForOneCallerAtATime() {
        application.run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            String account = "jedis-" + UUID.randomUUID();
            CompletableFuture<?>[] callers = new CompletableFuture<?>[4];
            for (int i = 0; i < callers.length; i++) {
                callers[i] = CompletableFuture.runAsync(() -> ledger.post(account));
            }
            CompletableFuture.allOf(callers).get(20, TimeUnit.SECONDS);
            assertThat(ledger.posted()).isEqualTo(callers.length);
            assertThat(ledger.mostAtOnce()).as("callers inside the method at once").isEqualTo(1);
        });
    }

    @Test
    void theWatchdogKeepsALockWithoutALeaseBeyondThreeWatchdogTimeouts() {
        application.withPropertyValues("redis-lock.watchdog-timeout=1s").run(context -> {
            Locker locker = context.getBean(Locker.class);
            String key = "jedis-" + UUID.randomUUID();
            locker.lock(key);
            await().during(Duration.ofMillis(3200)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                    .until(() -> locker.isLocked(key));
            locker.unlock(key);
            assertThat(locker.isLocked(key)).isFalse();
        });
    }

    /** Completes with when another thread, which waits as long as it takes, got the lock; it then released it. */
    private static CompletableFuture<Long> takeAndReleaseOnAnotherThread(Locker locker, String key) {
        return CompletableFuture.supplyAsync(() -> {
            locker.lock(key);
            long at = System.nanoTime();
            locker.unlock(key);
            return at;
        });
    }

    /** Waits until one waiter waits; fails with the waiter's own failure when it ended instead. */
    @Test
    void replicaSyncFailsStartupNamingItBecauseOnlyLettuceSendsTheWait() {
        application.withPropertyValues("redis-lock.replica-sync=200ms")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("redis-lock.replica-sync needs Lettuce").hasMessageContaining("JedisConnectionFactory"));
    }

    private static void awaitWaiters(ApplicationContext context, CompletableFuture<Long> waiter) throws Exception {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                .until(() -> context.getBean(RedisLocker.class).waiterCount() == 1 || waiter.isDone());
        if (waiter.isDone()) {
            waiter.get();
            throw new AssertionError("The waiter got the lock at once; it should have waited");
        }
    }

    private static void assertWokenByTheRelease(long releasedAt, CompletableFuture<Long> acquiredAt) throws Exception {
        assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt))
                .as("ms from the release until the waiter held the lock").isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
    }

    static class Ledger {
        private final AtomicInteger posted = new AtomicInteger();
        private final AtomicInteger mostAtOnce = new AtomicInteger();
        private final AtomicInteger inside = new AtomicInteger();

        /** Read through the proxy, which has no state of its own. */
        public int posted() {
            return posted.get();
        }

        public int mostAtOnce() {
            return mostAtOnce.get();
        }

        @DistributedLock(key = "'account:' + #account", waitTime = 10_000)
        public void post(String account) {
            mostAtOnce.accumulateAndGet(inside.incrementAndGet(), Math::max);
            try {
                Thread.sleep(50); // long enough for the other callers to queue behind this one
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inside.decrementAndGet();
                posted.incrementAndGet();
            }
        }

        @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
        static class Configuration {
            @Bean
            Ledger ledger() {
                return new Ledger();
            }
        }
    }
}
