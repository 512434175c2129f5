package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Jedis with read timeout 0 never gives up on a reply: a blocking call must still end at the library's reply backstop
 * (60 s + 1 s without a Lettuce command timeout), not park its caller for as long as Redis stays silent.
 */
class JedisWithoutReadTimeoutTest {

    @Test
    @Disabled("Fails at 3a60812: CallerRuns parks untimed on a Jedis call (ScriptTransport.onConnection) that has no backstop; the lead fixes it and removes this")
    void aBlockingUnlockWhoseReplyNeverComesEndsAtTheReplyBackstop() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            LockerFixture instance = LockerFixture.connectJedis(redis.host(), redis.port(), Duration.ofSeconds(1), Duration.ZERO);
            ExecutorService caller = Executors.newSingleThreadExecutor();
            try {
                caller.submit(() -> instance.locker.lock("unanswered")).get(); // the unlock's thread holds it
                redis.pause();
                Future<?> unlock = caller.submit(() -> instance.locker.unlock("unanswered"));
                assertThat(unlock).as("an unlock Redis never answers, on Jedis without a read timeout")
                        .failsWithin(Duration.ofSeconds(75))
                        .withThrowableOfType(ExecutionException.class)
                        .withStackTraceContaining("unanswered");
            } finally {
                redis.resume();
                caller.shutdownNow();
                instance.close();
            }
        }
    }
}
