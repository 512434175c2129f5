package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.LockLostEvent;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Nothing stays behind: no lock held for an owner that is gone (a waiter killed while queued, a
 * thread that ended holding a watchdog lock), no fencing token that goes back after Redis lost its
 * data, no key left in Redis after locks are released. Each scenario measures what it shows and
 * becomes a row of the reliability report.
 */
class LeftBehindTest {

    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(1);
    static final List<String> rows = new ArrayList<>();
    @AutoClose
    static final RedisServerProcess redis = TestRedis.startNew();
    LockerFixture instance;

    @AfterAll
    static void report() {
        if (!rows.isEmpty()) {
            ReliabilityReport.write("left-behind", ReliabilityReport.runLine() + "\n\n| scenario | done | measured | bound | result |\n"
                    + "|---|---|---|---|---|\n" + String.join("\n", rows));
        }
    }

    @BeforeEach
    void connect() {
        redis.flushAll();
        instance = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
    }

    @AfterEach
    void disconnect() {
        instance.close();
    }

    @Test
    void aLockHandedToAWaiterKilledWhileQueuedIsFreeWithinTheWaitersWatchdogTimeoutWhateverLeaseItAskedFor() {
        long waiterWatchdogMillis = 3000;
        long waiterLeaseMillis = 60_000;
        instance.locker.lock("handed-to-the-dead");
        WorkerProcess waiter = WorkerProcess.start("queued-waiter", Path.of("target", "reliability", "left-behind"), QueuedWaiter.class,
                List.of(Integer.toString(redis.port()), "handed-to-the-dead", Long.toString(waiterLeaseMillis), Long.toString(waiterWatchdogMillis)));
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> Long.valueOf(1).equals(redis.command("LLEN", "lock:{lock:handed-to-the-dead}:wait-queue")));
            waiter.kill();
        } finally {
            waiter.destroy();
        }
        instance.locker.unlock("handed-to-the-dead"); // hands the lock to the dead waiter: its queue place has not lapsed yet
        long handedAt = System.nanoTime();
        assertThat(instance.locker.isLocked("handed-to-the-dead")).as("handed to the killed waiter").isTrue();

        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> !instance.locker.isLocked("handed-to-the-dead"));
        long freeAfter = millisSince(handedAt);

        row("waiter killed while queued", "a waiter asking for a " + waiterLeaseMillis / 1000 + " s lease (watchdog timeout "
                + waiterWatchdogMillis + " ms) `kill -9`ed while queued; the holder's release hands it the lock", "free after " + freeAfter + " ms",
                "its watchdog timeout (" + waiterWatchdogMillis + " ms)", freeAfter <= waiterWatchdogMillis + 200);
        assertThat(freeAfter).as("ms until the lock handed to the killed waiter was free").isLessThanOrEqualTo(waiterWatchdogMillis + 200);
    }

    @Test
    void aWatchdogLockWhoseOwnerThreadEndedIsFreeWithinTheWatchdogTimeoutAndReportedLost() throws Exception {
        Thread owner = new Thread(() -> instance.locker.lock("owner-ended"), "ends-holding-the-lock");
        owner.start();
        owner.join(5000);
        long endedAt = System.nanoTime();
        assertThat(instance.locker.isLocked("owner-ended")).isTrue();

        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> !instance.locker.isLocked("owner-ended"));
        long freeAfter = millisSince(endedAt);
        long bound = WATCHDOG_TIMEOUT.toMillis() + WATCHDOG_TIMEOUT.toMillis() / 3; // noticed at the next tick, then the last renewal runs out

        row("holder thread terminated", "a thread takes a watchdog lock and ends without unlocking it", "free after " + freeAfter + " ms",
                "watchdog timeout + one renewal interval (" + bound + " ms)", freeAfter <= bound + 200);
        assertThat(freeAfter).as("ms until the lock of the ended thread was free").isLessThanOrEqualTo(bound + 200);
        assertThat(instance.lostEvents).singleElement().satisfies(event -> {
            assertThat(event.getKey()).isEqualTo("owner-ended");
            assertThat(event.getReason()).isEqualTo(LockLostEvent.OWNER_THREAD_TERMINATED);
        });
        assertThat(instance.locker.heldLockCount()).isZero();
        assertThat(instance.locker.watchdogState().watchedCount()).isZero();
    }

    @Test
    void aTokenOwnedLockOutlivesTheThreadThatTookIt() throws Exception {
        AtomicBoolean taken = new AtomicBoolean();
        Thread taker = new Thread(() -> {
            try {
                taken.set(instance.locker.tryLockAs("invocation-1", "token-owned", 0, -1, TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        taker.start();
        taker.join(5000);
        assertThat(taken).isTrue();

        await().pollDelay(WATCHDOG_TIMEOUT.multipliedBy(2)).atMost(WATCHDOG_TIMEOUT.multipliedBy(3))
                .until(() -> instance.locker.isLocked("token-owned"));
        instance.locker.unlockAs("invocation-1", "token-owned");
        assertThat(instance.lostEvents).isEmpty();
    }

    @Test
    void fencingTokensKeepRisingAfterRedisLostAllItsData() {
        instance.locker.lock("fenced");
        long before = instance.locker.fencingToken("fenced");
        instance.locker.unlock("fenced");
        redis.flushAll(); // what an empty restart or a failover to an unsynced replica leaves

        instance.locker.lock("fenced");
        long after = instance.locker.fencingToken("fenced");
        instance.locker.unlock("fenced");

        row("Redis data loss with fencing", "lock, unlock, `FLUSHALL`, lock again", "token " + before + " then " + after,
                "strictly increasing", after > before);
        assertThat(after).as("token after the data loss").isGreaterThan(before);
    }

    @Test
    void aThousandPerEntityLocksLeaveNoKeyInRedisOnceReleased() {
        for (int i = 0; i < 1000; i++) {
            String key = "order:" + i;
            instance.locker.lock(key);
            instance.locker.fencingToken(key);
            instance.locker.unlock(key);
        }
        long keysLeft = (Long) redis.command("DBSIZE");

        row("keys left after 1,000 per-entity locks", "1,000 keys `order:<id>` each locked (token drawn) and unlocked",
                keysLeft + " key(s) in Redis right after the last unlock", "0", keysLeft == 0);
        assertThat(keysLeft).as("keys left in Redis").isZero();
    }

    private static void row(String scenario, String done, String measured, String bound, boolean pass) {
        synchronized (rows) {
            rows.add("| " + scenario + " | " + done + " | " + measured + " | " + bound + " | " + (pass ? "pass" : "FAIL") + " |");
        }
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
