package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redislock.LockLostException;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What the watchdog logs while it cannot renew: a context stopped with a lock held ({@code context.stop()}, its
 * connection factory stopped with it) is said once, as renewal pausing until the start, not as a failure every tick;
 * a Redis that does not answer while the context runs is still a WARN at every failed tick.
 */
@ExtendWith(OutputCaptureExtension.class)
class WatchdogWhileStoppedTest {

    /** A tick every 300 ms. */
    static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(900);
    static final int TICKS = 4;

    private ApplicationContextRunner application(RedisServerProcess redis, String client) {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
                        "spring.data.redis.timeout=200ms", "spring.data.redis.client-type=" + client,
                        "redis-lock.watchdog-timeout=" + WATCHDOG_TIMEOUT.toMillis() + "ms");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void aContextStoppedWithALockHeldSaysOnceThatRenewalPausesNotAtEveryTick(String client, CapturedOutput output) {
        String key = "watchdog-stopped-" + UUID.randomUUID();
        application(TestRedis.shared(), client).run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            locker.lock(key);
            int before = watchdogWarnings(output).size();
            context.stop();

            await().atMost(WATCHDOG_TIMEOUT.multipliedBy(TICKS + 2)).until(() -> locker.watchdogState().consecutiveFailures() >= TICKS);

            List<String> warnings = watchdogWarnings(output).subList(before, watchdogWarnings(output).size());
            assertThat(warnings).as("WARN lines of the watchdog over " + TICKS + " failed ticks while stopped").hasSize(1);
            assertThat(warnings.get(0)).contains("context is stopped").contains("1 lock(s)").contains("not renewed");
            context.start();
            try {
                locker.unlock(key);
            } catch (LockLostException expired) { // stopped past its watchdog timeout, as the warning said it would be
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void aRedisThatDoesNotAnswerWhileTheContextRunsIsAWarningAtEveryFailedTick(String client, CapturedOutput output) {
        String key = "watchdog-hung-" + UUID.randomUUID();
        try (RedisServerProcess redis = TestRedis.startNew()) {
            application(redis, client).run(context -> {
                RedisLocker locker = context.getBean(RedisLocker.class);
                locker.lock(key);
                int before = watchdogWarnings(output).size();
                redis.pause();
                try {
                    await().atMost(WATCHDOG_TIMEOUT.multipliedBy(TICKS + 2)).until(() -> locker.watchdogState().consecutiveFailures() >= TICKS);
                } finally {
                    redis.resume();
                }

                assertThat(watchdogWarnings(output).size() - before).as("WARN lines of the watchdog over " + TICKS + " failed ticks")
                        .isGreaterThanOrEqualTo(TICKS);
                try {
                    locker.unlock(key);
                } catch (LockLostException expired) { // unanswered past its watchdog timeout
                }
            });
        }
    }

    /** The watchdog's WARN lines so far, in Logback's plain layout or Spring Boot's. */
    private static List<String> watchdogWarnings(CapturedOutput output) {
        return output.getAll().lines().filter(line -> line.contains("WARN") && line.contains("LockWatchdog")).toList();
    }
}
