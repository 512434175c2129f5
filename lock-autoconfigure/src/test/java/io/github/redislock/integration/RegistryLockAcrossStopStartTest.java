package io.github.redislock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.locks.Lock;

import io.github.redislock.LockLostException;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockIntegrationAutoConfiguration;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A lock of the auto-configured {@code LockRegistry} held by a thread while its context is stopped
 * ({@code context.stop()}, a checkpoint) and started again: the watchdog renews it again after the start,
 * past several watchdog timeouts, so no other instance can take it, and its unlock then frees it; a stop
 * that outlasts the watchdog timeout loses it, and the unlock says so. On Lettuce and on Jedis (whose pool
 * the stop destroys and the start builds anew). The registry offers plain reentrant locks only, no fair or
 * read-write ones.
 */
class RegistryLockAcrossStopStartTest {

    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(1);

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class, RedisLockIntegrationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port(),
                    "redis-lock.watchdog-timeout=" + WATCHDOG_TIMEOUT.toMillis() + "ms", LockerFixture.CALLER_CONNECTIONS_SETTING);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void aLockHeldThroughAStopAndStartIsRenewedAgainAndFreedByItsUnlock(String client) {
        heldThroughAStop(client, (context, lock, redisKey) -> {
            context.start();

            await().during(WATCHDOG_TIMEOUT.multipliedBy(3)).atMost(WATCHDOG_TIMEOUT.multipliedBy(4))
                    .until(() -> Long.valueOf(1).equals(TestRedis.shared().command("EXISTS", redisKey)));
            lock.unlock();
            assertThat(TestRedis.shared().command("EXISTS", redisKey)).as("freed by the unlock").isEqualTo(0L);
        });
    }

    /** Stopped longer than the watchdog timeout, nobody renews it: the holder learns at its unlock, which frees nothing of another's. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void aLockThatExpiredWhileTheContextWasStoppedFailsItsUnlockWithLockLostException(String client) {
        heldThroughAStop(client, (context, lock, redisKey) -> {
            await().atMost(WATCHDOG_TIMEOUT.multipliedBy(3)).until(() -> Long.valueOf(0).equals(TestRedis.shared().command("EXISTS", redisKey)));
            TestRedis.shared().command("HSET", redisKey, "another-owner", "1"); // another instance took it meanwhile
            context.start();

            assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class).hasMessageContaining(redisKey.substring("lock:".length()));
            assertThat(TestRedis.shared().command("HEXISTS", redisKey, "another-owner")).as("the other owner's lock left alone").isEqualTo(1L);
            TestRedis.shared().command("DEL", redisKey);
        });
    }

    /** Takes a registry lock on {@code client}, stops the context, and hands both on. */
    private void heldThroughAStop(String client, WhileStopped then) {
        String key = "registry-stop-start-" + UUID.randomUUID();
        application.withPropertyValues("spring.data.redis.client-type=" + client).run(context -> {
            Lock lock = context.getBean(LockRegistry.class).obtain(key);
            lock.lock();
            context.stop();
            then.run(context, lock, "lock:" + key);
        });
    }

    @FunctionalInterface
    interface WhileStopped {
        void run(ConfigurableApplicationContext context, Lock lock, String redisKey) throws Exception;
    }
}
