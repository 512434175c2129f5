package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.ExecutionException;

import io.github.redislock.testsupport.RedisServerProcess;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Who bounds the wait for a script's reply. Lettuce times commands out itself when its client options
 * say so (Spring Data's and Spring Boot's default): a timer of our own per command would then only wake
 * the JDK's timer thread twice per lock and unlock. A client configured without command timeouts still
 * gets a bound, the reply backstop.
 */
class ReplyTimeoutTest {

    /** The thread behind {@code CompletableFuture.orTimeout}: a new timer task at the head of its queue wakes it. */
    private static final String JDK_TIMER_THREAD = "CompletableFutureDelayScheduler";
    private static final int PAIRS = 200;

    @Test
    void uncontendedPairsWakeNoJdkTimerThreadWhenTheClientTimesCommandsOut() {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            for (int i = 0; i < 20; i++) { // connections open, scripts loaded
                instance.locker.lock("warm-up");
                instance.locker.unlock("warm-up");
            }
            long waitsBefore = jdkTimerThreadWaits();

            for (int i = 0; i < PAIRS; i++) {
                instance.locker.lock("measured");
                instance.locker.unlock("measured");
            }

            assertThat(jdkTimerThreadWaits() - waitsBefore).as("times the JDK's timer thread went back to waiting during %d pairs", PAIRS)
                    .isLessThan(PAIRS / 10);
        }
    }

    @Test
    void aClientWithoutCommandTimeoutsStillGetsNoReplyAtTheBackstop() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            LettuceClientConfiguration client = LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(500))
                    .clientOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build()).build())
                    .build();
            LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()), client);
            factory.afterPropertiesSet();
            factory.start();
            try (RedisLocker locker = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).build();
                 RedisAsyncLocker async = new RedisAsyncLocker(locker)) {
                locker.lock("warm-up"); // the shared connection known: the next call goes out on it
                locker.unlock("warm-up");
                redis.pause();
                try {
                    assertThat(async.acquire("unanswered", Duration.ZERO, null)).as("an acquisition Redis never answers")
                            .failsWithin(Duration.ofSeconds(10))
                            .withThrowableOfType(ExecutionException.class)
                            .withStackTraceContaining("No reply from Redis within " + Duration.ofMillis(1500))
                            .withStackTraceContaining("unanswered");
                } finally {
                    redis.resume();
                }
            } finally {
                factory.destroy();
            }
        }
    }

    /** How often the JDK's timer thread has waited so far; none if it never started. */
    private static long jdkTimerThreadWaits() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(JDK_TIMER_THREAD))
                .mapToLong(t -> ManagementFactory.getThreadMXBean().getThreadInfo(t.getId()).getWaitedCount()).sum();
    }
}
