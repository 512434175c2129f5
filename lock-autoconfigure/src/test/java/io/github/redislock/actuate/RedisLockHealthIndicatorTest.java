package io.github.redislock.actuate;

import io.github.redislock.core.Internals;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.WatchdogState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;

import io.github.redislock.LockLostException;
import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The health rule against a Redis of its own that the tests pause: the watchdog cannot renew while it is stopped. */
class RedisLockHealthIndicatorTest {

    @AutoClose
    static final RedisServerProcess redis = TestRedis.startNew();

    /** Ticks every second; a Redis command gives up after 200 ms. */
    private ApplicationContextRunner contextRunner(String watchdogTimeout) {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.LOCK_HEALTH), RedisLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=200ms", "redis-lock.watchdog-timeout=" + watchdogTimeout);
    }

    @Test
    void isUpWithTheWatchdogsStateWhileRenewalsWork() {
        contextRunner("3s").run(context -> {
            Locker locker = context.getBean(Locker.class);
            locker.lock("health-fine");
            Internals.renewNow(context.getBean(RedisLocker.class));
            HealthReading health = HealthReading.of(context);
            locker.unlock("health-fine");

            assertThat(health.status()).isEqualTo("UP");
            assertThat(health.details()).containsEntry("watchedLocks", 1).containsEntry("consecutiveFailures", 0)
                    .containsEntry("watchdogTimeoutMillis", 3000L).containsKey("lastRenewal").doesNotContainKey("failingSince");
        });
    }

    @Test
    void aFailureShorterThanTheTimeoutIsReportedButStaysUp() {
        contextRunner("3s").run(context -> {
            Locker locker = context.getBean(Locker.class);
            WatchdogState watchdog = context.getBean(RedisLocker.class).watchdogState();
            locker.lock("health-short");
            HealthReading health;
            redis.pause();
            try {
                await().atMost(Duration.ofSeconds(5)).until(() -> watchdog.consecutiveFailures() > 0);
                health = HealthReading.of(context);
            } finally {
                redis.resume();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> watchdog.consecutiveFailures() == 0);
            locker.unlock("health-short");

            assertThat(health.status()).isEqualTo("UP");
            assertThat(health.details()).containsKey("failingSince").doesNotContainKey("locksAtRisk");
        });
    }

    @Test
    void isDownNamingTheLocksAtRiskOnceRenewalsFailedForLongerThanTheTimeout() {
        contextRunner("1s").run(context -> {
            Locker locker = context.getBean(Locker.class);
            locker.lock("health-at-risk");
            HealthReading down;
            redis.pause();
            try {
                down = await().atMost(Duration.ofSeconds(6)).until(() -> HealthReading.of(context), health -> health.status().equals("DOWN"));
            } finally {
                redis.resume();
            }
            assertThat(down.details()).containsEntry("locksAtRisk", 1);
            assertThat((String) down.details().get("error")).contains("has not renewed 1 lock(s)");

            // Back up: the expired lock is found lost, so nothing is at risk any more.
            await().atMost(Duration.ofSeconds(6)).until(() -> HealthReading.of(context).status().equals("UP"));
            assertThatThrownBy(() -> locker.unlock("health-at-risk")).isInstanceOf(LockLostException.class);
        });
    }
}
