package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A plain wait's first try sends what a tryLock sends (the lock, its lease, the owner, the flags): a lock it finds held gets
 * the waiters mark, and the call that queues follows. A key a wait of the same instance was blocked on lately queues with the
 * first call, as every wait did before, so a contended lock's waiters pay no extra call. The calls are read from the
 * slow log of a server of its own, with every command logged.
 */
class FirstTryMarksThenQueuesTest {

    private static final String KEY = "marks-then-queues";
    private static final LockKeys KEYS = LockKeys.of(LockerFixture.PREFIX, KEY);
    /** A wait queues with its first call for a third of it (the time a queue place is kept) after a wait for the key was blocked. */
    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(90);

    @AutoClose
    static final RedisServerProcess redis = TestRedis.startNew();

    LockerFixture holder;
    LockerFixture waiter;
    final ExecutorService thread = Executors.newSingleThreadExecutor();
    /** The wait {@link #acquireKeyCountsOfAWaitForTheHeldLock} started: true once it held the lock (and released it). */
    Future<Boolean> waited;

    @BeforeEach
    void connect() {
        holder = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
        waiter = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
    }

    @AfterEach
    void close() {
        thread.shutdownNow();
        redis.command("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        holder.close();
        waiter.close();
    }

    @Test
    void aBlockedWaitMarksTheLockWithItsFirstCallThenQueuesAndIsHandedTheLock() throws Exception {
        holder.locker.lock(KEY);

        List<Integer> keyCounts = acquireKeyCountsOfAWaitForTheHeldLock();

        // a new instance's inbox was not heard yet when the wait began: it may look once more after joining
        assertThat(keyCounts).as("keys of the wait's acquire.lua calls: the lock alone, then the lock and its queue keys").startsWith(1, 3)
                .hasSizeLessThanOrEqualTo(3).containsOnlyOnce(1);
        assertThat(redis.command("HEXISTS", KEYS.name(), "waiters")).isEqualTo(1L);
        holder.locker.unlock(KEY);
        assertThat(waited.get(5, TimeUnit.SECONDS)).as("handed the lock").isTrue();
    }

    @Test
    void aWaitForAKeyBlockedLatelyQueuesWithItsFirstCall() throws Exception {
        holder.locker.lock(KEY);
        acquireKeyCountsOfAWaitForTheHeldLock();
        holder.locker.unlock(KEY);
        assertThat(waited.get(5, TimeUnit.SECONDS)).isTrue();
        holder.locker.lock(KEY);

        List<Integer> keyCounts = acquireKeyCountsOfAWaitForTheHeldLock();

        assertThat(keyCounts).as("keys of the wait's acquire.lua calls").containsOnly(3);
        holder.locker.unlock(KEY);
        assertThat(waited.get(5, TimeUnit.SECONDS)).isTrue();
    }

    /** Starts a wait of {@code waiter} for the held lock; returns the key counts of its acquire.lua calls, oldest first, once it queued. */
    @SuppressWarnings("unchecked")
    private List<Integer> acquireKeyCountsOfAWaitForTheHeldLock() {
        redis.command("CONFIG", "SET", "slowlog-log-slower-than", "0");
        redis.command("SLOWLOG", "RESET");
        waited = thread.submit(() -> {
            waiter.locker.lock(KEY);
            waiter.locker.unlock(KEY);
            return true;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> (Long) redis.command("LLEN", KEYS.waitQueue()), length -> length == 1);
        redis.command("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        List<Integer> keyCounts = new ArrayList<>();
        for (Object entry : (List<?>) redis.command("SLOWLOG", "GET", "1000")) {
            List<Object> call = (List<Object>) ((List<?>) entry).get(3);
            if ("evalsha".equalsIgnoreCase((String) call.get(0)) && LockScript.ACQUIRE.sha1Hex().equals(call.get(1))) {
                keyCounts.add(Integer.parseInt((String) call.get(2)));
            }
        }
        Collections.reverse(keyCounts); // the slow log lists the newest first
        return keyCounts;
    }
}
