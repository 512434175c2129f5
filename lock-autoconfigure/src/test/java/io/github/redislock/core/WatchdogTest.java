package io.github.redislock.core;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockObserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The watchdog and script-cache behaviour, on a Redis of its own so command statistics belong to this test alone. */
class WatchdogTest {

    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(1);

    @AutoClose
    static final RedisServerProcess redis = TestRedis.startNew();
    LockerFixture instance;

    @BeforeEach
    void connect() {
        redis.command("FLUSHALL");
        instance = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
    }

    @AfterEach
    void disconnect() {
        instance.close();
    }

    @Test
    void keepsALockWithoutLeaseForThreeTimesItsTimeoutAndStopsRenewingAtUnlock() throws Exception {
        instance.locker.lock("job");
        Thread.sleep(3 * WATCHDOG_TIMEOUT.toMillis());

        assertThat(instance.locker.isHeldByCurrentThread("job")).isTrue();
        long ttl = (Long) redis.command("PTTL", "lock:job");
        assertThat(ttl).isBetween(1L, WATCHDOG_TIMEOUT.toMillis());

        instance.locker.unlock("job");
        long scriptCallsAfterUnlock = scriptCalls();
        Thread.sleep(2 * instance.watchdog.renewalInterval().toMillis() + 200);

        assertThat(redis.command("EXISTS", "lock:job")).isEqualTo(0L);
        assertThat(scriptCalls()).as("script calls after the unlock").isEqualTo(scriptCallsAfterUnlock);
        assertThat(instance.watchdog.watchedCount()).isZero();
    }

    /** Metrics never reach a lock: a tick whose observer throws on hearing of it still renewed, and counts as a renewal. */
    @Test
    void anObserverThatThrowsOnARenewalLeavesTheTickARenewal() {
        LettuceConnectionFactory factory = LockerFixture.startedLettuce(redis.host(), redis.port(), Duration.ofSeconds(5));
        RedisLocker locker = RedisLocker.builder(factory).keyPrefix("lock:").watchdogTimeout(WATCHDOG_TIMEOUT).observer(new LockObserver() {
            @Override
            public void renewed(int renewed, int lost) {
                throw new IllegalStateException("metrics backend down");
            }
        }).build();
        try {
            locker.lock("observed-renewal");

            locker.watchdog.renewNow();

            assertThat(locker.watchdog.lastRenewal()).as("last renewal").isNotNull();
            assertThat(locker.watchdog.consecutiveFailures()).as("failed ticks").isZero();
            locker.unlock("observed-renewal");
        } finally {
            locker.close();
            LockerFixture.destroyWithin(factory, Duration.ofSeconds(20));
        }
    }

    @Test
    void aLockKeyOverwrittenWithAnotherTypeDoesNotStopRenewalOfTheRestOfItsBatch() {
        instance.locker.lock("overwritten");
        instance.locker.lock("intact");
        instance.locker.getReadWriteLock("overwritten-read").readLock().lock();
        instance.locker.getReadWriteLock("intact-read").readLock().lock();
        redis.command("SET", "lock:overwritten", "not a lock");
        redis.command("SET", "lock:{lock:overwritten-read}:leases", "not a lease set");
        redis.command("PEXPIRE", "lock:intact", "100");
        redis.command("PEXPIRE", "lock:intact-read", "100");

        instance.watchdog.renewNow();

        assertThat((Long) redis.command("PTTL", "lock:intact")).as("renewed despite the overwritten key in its batch").isGreaterThan(100L);
        assertThat((Long) redis.command("PTTL", "lock:intact-read")).as("read hold renewed despite the overwritten lease set").isGreaterThan(100L);
        // Lost events reach listeners on a thread of their own (redis-lock-lost-events), a moment after the tick.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(instance.lostEvents).extracting(LockLostEvent::getKey).containsExactlyInAnyOrder("overwritten", "overwritten-read"));
        instance.locker.unlock("intact");
        instance.locker.getReadWriteLock("intact-read").readLock().unlock();
    }

    @Test
    void renewsAThousandLocksWithOneScriptCallPerTick() throws Exception {
        int locks = 1000;
        // A long timeout keeps the scheduled tick away, so the one tick counted is ours.
        try (LockerFixture holder = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            // The holding threads stay alive until the end: the locks of an ended thread are no longer renewed.
            ExecutorService holders = Executors.newFixedThreadPool(50);
            try {
                List<Future<?>> taken = new ArrayList<>();
                for (int i = 0; i < locks; i++) {
                    String key = "many-" + i;
                    taken.add(holders.submit(() -> holder.locker.lock(key)));
                }
                for (Future<?> future : taken) {
                    future.get(30, TimeUnit.SECONDS);
                }
                holder.watchdog.renewNow(); // the first tick on a fresh server also loads the script (NOSCRIPT, then EVAL)
                long before = scriptCalls();
                holder.watchdog.renewNow();
                assertThat(scriptCalls() - before).isEqualTo(1);
                assertThat(holder.watchdog.watchedCount()).isEqualTo(locks);
                assertThat((Long) redis.command("PTTL", "lock:many-999")).isGreaterThan(29_000L);
            } finally {
                holders.shutdownNow();
            }
        }
    }

    @Test
    void readWriteHoldsCostOneMoreScriptCallPerTickAndPlainLocksNone() throws Exception {
        ExecutorService holders = Executors.newFixedThreadPool(10);
        try {
            List<Future<?>> taken = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                String key = "mixed-" + i;
                taken.add(holders.submit(() -> {
                    instance.locker.lock(key);
                    instance.locker.getReadWriteLock(key + "-rw").readLock().lock();
                }));
            }
            for (Future<?> future : taken) {
                future.get(10, TimeUnit.SECONDS);
            }
            instance.watchdog.renewNow(); // loads the scripts on a fresh server
            long before = scriptCalls();
            instance.watchdog.renewNow();
            assertThat(scriptCalls() - before).isEqualTo(2);
            assertThat(instance.watchdog.watchedCount()).isEqualTo(20);
        } finally {
            holders.shutdownNow();
        }
    }

    @Test
    void aScriptFlushInTheMiddleOfARunBreaksNothing() throws Exception {
        int sections = 200;
        ExecutorService flusher = Executors.newSingleThreadExecutor();
        Future<?> flushing = flusher.submit(() -> {
            for (int i = 0; i < 20 && !Thread.currentThread().isInterrupted(); i++) {
                redis.command("SCRIPT", "FLUSH");
                Thread.sleep(10);
            }
            return null;
        });
        try {
            for (int i = 0; i < sections; i++) {
                instance.locker.lock("flushed");
                instance.locker.lock("flushed");
                instance.locker.unlock("flushed");
                instance.locker.unlock("flushed");
            }
            flushing.get(10, TimeUnit.SECONDS);
        } finally {
            flusher.shutdownNow();
        }
        redis.command("SCRIPT", "FLUSH");
        instance.locker.lock("flushed");
        instance.watchdog.renewNow();
        instance.locker.unlock("flushed");
        assertThat(redis.command("EXISTS", "lock:flushed")).isEqualTo(0L);
        assertThat(instance.lostEvents).isEmpty();
    }

    @Test
    void aRedisOutageDoesNotStopTheWatchdog() throws Exception {
        // Ticks every second, a command gives up after 200 ms: the lock outlives one failed tick.
        try (LockerFixture patient = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(3), Duration.ofMillis(200))) {
            patient.locker.lock("survivor");
            redis.pause();
            try {
                await().atMost(Duration.ofSeconds(5)).until(() -> patient.watchdog.consecutiveFailures() > 0);
            } finally {
                redis.resume();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> patient.watchdog.consecutiveFailures() == 0);
            assertThat(patient.watchdog.lastRenewal()).isNotNull();
            assertThat(patient.lostEvents).isEmpty();
            patient.locker.unlock("survivor");
        }
    }

    private long scriptCalls() {
        return redis.commandCount("evalsha") + redis.commandCount("eval");
    }
}
