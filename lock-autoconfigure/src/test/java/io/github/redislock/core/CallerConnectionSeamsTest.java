package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.connection.CallerConnections;
import io.github.redislock.testsupport.RedisServerProcess;

import io.lettuce.core.RedisConnectionException;

import org.junit.jupiter.api.Test;
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
            ExecutorService threads = Executors.newFixedThreadPool(8);
            try {
                CountDownLatch ready = new CountDownLatch(8);
                List<Future<Long>> took = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    String key = "paused-" + t;
                    took.add(threads.submit(() -> {
                        ready.countDown();
                        ready.await();
                        long start = System.nanoTime();
                        assertThatThrownBy(() -> instance.locker.tryLock(key)).isInstanceOf(LockRedisException.class)
                                .hasMessageContaining(instance.redisKey(key));
                        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    }));
                }
                for (Future<Long> thread : took) {
                    assertThat(thread.get(30, TimeUnit.SECONDS)).as("ms a tryLock took to fail, the timeout " + TIMEOUT).isLessThan(FAILED_WITHIN_MILLIS);
                }
            } finally {
                threads.shutdownNow();
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

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
