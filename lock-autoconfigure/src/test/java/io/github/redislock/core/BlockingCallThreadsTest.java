package io.github.redislock.core;

import io.github.redislock.core.script.ScriptTransport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.Test;

/**
 * Without a shared native connection (Jedis) a script call waits for Redis on a thread of the
 * transport's own: a flood of calls that Redis does not answer (a paused server) must not start a
 * thread per call, and every call still completes once Redis answers again.
 */
class BlockingCallThreadsTest {

    private static final int CALLS = ScriptTransport.BLOCKING_CALL_THREADS + 40;

    @Test
    void aFloodOfUnansweredAsyncAcquisitionsStartsNoMoreThanTheBoundedCallThreads() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture jedis = LockerFixture.connectJedis(redis.host(), redis.port(), Duration.ofSeconds(5))) {
            jedis.async.release(jedis.async.acquire("flood-warm-up", Duration.ZERO, null).get(10, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS);
            List<CompletableFuture<LockHandle>> acquisitions = new ArrayList<>();
            redis.pause();
            try {
                for (int i = 0; i < CALLS; i++) {
                    acquisitions.add(jedis.async.acquire("flood-" + i, Duration.ZERO, null));
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> blockingCallThreads() >= ScriptTransport.BLOCKING_CALL_THREADS);
                Thread.sleep(300); // lets the calls past the bound start a thread, if they would
                assertThat(blockingCallThreads()).as("blocking-call threads with " + CALLS + " calls in flight")
                        .isEqualTo(ScriptTransport.BLOCKING_CALL_THREADS);
            } finally {
                redis.resume();
            }
            for (CompletableFuture<LockHandle> acquisition : acquisitions) {
                assertThat(acquisition).as("an acquisition that waited for a thread").succeedsWithin(Duration.ofSeconds(10));
            }
        }
    }

    private static long blockingCallThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals("redis-lock-blocking-call")).count();
    }
}
