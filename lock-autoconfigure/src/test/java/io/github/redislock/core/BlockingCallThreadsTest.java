package io.github.redislock.core;

import io.github.redislock.core.script.ScriptTransport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRedisException;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Without a shared native connection (Jedis) a script call waits for Redis on a thread of the
 * transport's own: a flood of calls that Redis does not answer (a paused server) must not start a
 * thread per call, and every call still completes once Redis answers again.
 */
@ExtendWith(OutputCaptureExtension.class)
class BlockingCallThreadsTest {

    private static final int CALLS = ScriptTransport.BLOCKING_CALL_THREADS + 40;
    /** The calls docs/configuration.md says may queue behind the threads. */
    private static final int DOCUMENTED_QUEUE = 4096;
    /** Jedis's read timeout in the queue test: no call ends while Redis is paused (at most the 10 s the test waits for the refusals). */
    private static final Duration UNANSWERED_LONGER_THAN_THE_PAUSE = Duration.ofSeconds(30);

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
    void callsPastTheQueueBehindTheBoundedThreadsFailAtOnceNamingTheirKeys(CapturedOutput output) throws Exception {
        int beyond = 100;
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture jedis = LockerFixture.connectJedis(redis.host(), redis.port(), Duration.ofSeconds(5), UNANSWERED_LONGER_THAN_THE_PAUSE)) {
            jedis.async.release(jedis.async.acquire("queue-warm-up", Duration.ZERO, null).get(10, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS);
            List<CompletableFuture<LockHandle>> acquisitions = new ArrayList<>();
            AtomicInteger refusedWhilePaused = new AtomicInteger();
            AtomicBoolean paused = new AtomicBoolean(true);
            // Exactly the calls past the 64 threads and their 4,096 places are refused when nothing else takes a place: a call refused
            // is abandoned as a possibly lost reply, and its withdrawal asks the pool for a place too, which it gets only if one frees
            // while Redis is paused. One frees (1) when a call ends, which the read timeout, longer than the pause, rules out, and (2)
            // when a pool thread that was idle as the flood began takes its first call from the queue: a new thread starts with its
            // call in hand, an idle one takes it from a queue that may have been full a moment before, refusing a call too early whose
            // withdrawal then takes the freed place (up to 2 refusals per idle thread: CI once refused 114 with the earlier test's 64
            // idle threads, and the calls of an earlier test still running would take places too). So the flood starts once the pool
            // has no thread left: an idle one ends after 10 s.
            await().atMost(Duration.ofSeconds(40)).until(() -> blockingCallThreads() == 0);
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
            assertThat(refused).as("calls refused: those past the threads and their queue").isEqualTo(beyond);
            assertThat(output.getAll()).as("a refused call was never sent: its wait has no place or lost reply to withdraw")
                    .doesNotContain("Could not withdraw the wait for");
        }
    }

    private static long blockingCallThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals("redis-lock-blocking-call")).count();
    }
}
