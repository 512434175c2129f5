package io.github.redislock.core;

import io.github.redislock.core.script.ScriptTransport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRedisException;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.Test;

/**
 * Without a shared native connection (Jedis) a script call waits for Redis on a thread of the
 * transport's own: a flood of calls that Redis does not answer (a paused server) must not start a
 * thread per call, and every call still completes once Redis answers again.
 */
class BlockingCallThreadsTest {

    private static final int CALLS = ScriptTransport.BLOCKING_CALL_THREADS + 40;
    /** The calls docs/configuration.md says may queue behind the threads. */
    private static final int DOCUMENTED_QUEUE = 4096;

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

    /**
     * docs/configuration.md (Jedis): up to 4,096 calls queue behind the 64 threads, and a call past that fails at once (while Redis
     * still does not answer) with a LockRedisException naming its key; once Redis answers, every call that was let in completes.
     */
    @Test
    void callsPastTheQueueBehindTheBoundedThreadsFailAtOnceNamingTheirKeys() throws Exception {
        int beyond = 100;
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture jedis = LockerFixture.connectJedis(redis.host(), redis.port(), Duration.ofSeconds(5))) {
            jedis.async.release(jedis.async.acquire("queue-warm-up", Duration.ZERO, null).get(10, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS);
            List<CompletableFuture<LockHandle>> acquisitions = new ArrayList<>();
            AtomicInteger refusedWhilePaused = new AtomicInteger();
            AtomicBoolean paused = new AtomicBoolean(true);
            // The threads and their queue serve the whole JVM: calls of earlier tests still on them would take places (CI once
            // refused 21 calls more than this test sends past the bound), so the test starts once they are all done.
            await().atMost(Duration.ofSeconds(30)).until(BlockingCallThreadsTest::everyBlockingCallThreadWaitsForWork);
            redis.pause();
            try {
                for (int i = 0; i < ScriptTransport.BLOCKING_CALL_THREADS + DOCUMENTED_QUEUE + beyond; i++) {
                    // The asynchronous locker sends each call from its own threads, in no set order: which calls find the queue
                    // full is not known, only how many; a call that ends while Redis is paused did not wait for it.
                    acquisitions.add(jedis.async.acquire("queue-" + i, Duration.ZERO, null).whenComplete((handle, failure) -> {
                        if (failure != null && paused.get()) {
                            refusedWhilePaused.incrementAndGet();
                        }
                    }));
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> refusedWhilePaused.get() >= beyond);
            } finally {
                paused.set(false);
                redis.resume();
            }
            int refused = 0;
            for (int i = 0; i < acquisitions.size(); i++) {
                try {
                    acquisitions.get(i).get(30, TimeUnit.SECONDS); // a call let in completes once Redis answers
                } catch (ExecutionException e) {
                    assertThat(e.getCause()).as("queue-" + i + "'s failure").isInstanceOf(LockRedisException.class)
                            .hasMessageContaining("lock:queue-" + i + " ").hasMessageContaining("4096 calls already wait for one of the 64");
                    refused++;
                }
            }
            assertThat(refused).as("calls refused: those past the threads and their queue, and no more than the tasks of the pool other"
                    + " than these acquisitions").isBetween(beyond, beyond + 10);
        }
    }

    /** An idle pool thread waits for its next task in its queue, so none in a call and none queued. */
    private static boolean everyBlockingCallThreadWaitsForWork() {
        return Thread.getAllStackTraces().entrySet().stream().filter(thread -> thread.getKey().getName().equals("redis-lock-blocking-call"))
                .allMatch(thread -> Arrays.stream(thread.getValue()).anyMatch(frame -> frame.getClassName().equals(LinkedBlockingQueue.class.getName())));
    }

    private static long blockingCallThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals("redis-lock-blocking-call")).count();
    }
}
