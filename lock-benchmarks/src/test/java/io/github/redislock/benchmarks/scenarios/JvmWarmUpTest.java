package io.github.redislock.benchmarks.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintStream;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.BenchmarkOptions;
import io.github.redislock.benchmarks.clients.Implementations;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The JVM warm-up compiles the contended path too (queue places, hand-offs, release messages), not only
 * the uncontended pair: otherwise whichever implementation runs the contended scenario first pays for
 * that compilation in its measured rows (2-3x fewer acquisitions/s than the same code measured second).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class JvmWarmUpTest {

    @Test
    void theWarmUpHandsTheLockFromThreadToThreadOnOneKey() {
        BenchmarkOptions options = BenchmarkOptions.parse("--implementations=redis-lock", "--jvm-warmup-seconds=0.5");
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            BenchmarkContext context = new BenchmarkContext(options, redis, Implementations.select(List.of("redis-lock"), null, null), false,
                    new PrintStream(OutputStream.nullOutputStream()));

            JvmWarmUp.run(context);

            // A release publishes only to a waiter: the hand-off to a queued one ('granted' on its instance's inbox).
            assertThat(redis.commandCount("publish")).as("PUBLISH calls during the warm-up").isPositive();
        }
    }
}
