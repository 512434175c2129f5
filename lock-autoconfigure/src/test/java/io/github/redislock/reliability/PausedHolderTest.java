package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A holder JVM paused ({@code kill -STOP}) longer than its lease, resumed while another instance holds the lock: it learns it
 * lost the lock ({@code LockLostException} from its unlock, and on the watchdog path first a {@code LockLostEvent}), its unlock
 * leaves the other's hold alone, and its watchdog does not renew the other's lease (the other holds with a fixed lease, whose
 * remaining time a renewal would raise).
 */
class PausedHolderTest {

    private static final long WATCHDOG_MILLIS = 1000;
    private static final long SECOND_LEASE_MILLIS = 3000;

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "paused-holder-" + UUID.randomUUID();
    private final LockerFixture second = LockerFixture.connect(redis.host(), redis.port(), Duration.ofMillis(WATCHDOG_MILLIS));
    private WorkerProcess holder;

    @AfterEach
    void close() {
        if (holder != null) {
            holder.destroy();
        }
        second.close();
        redis.command("DEL", key + ":held", key + ":go", key + ":result");
    }

    @Test
    void aWatchdogHolderPausedPastItsLeaseIsToldOnResumeAndLeavesTheNextHoldersLockAndLeaseAlone() throws Exception {
        assertThePausedHolderLosesTheLockWithoutTouchingTheNextHold(-1, "unlock=LockLostException lostEvents=1 watched=0");
    }

    @Test
    void aHolderWithAnExplicitLeasePausedPastItIsToldOnResumeAndLeavesTheNextHoldersLockAndLeaseAlone() throws Exception {
        assertThePausedHolderLosesTheLockWithoutTouchingTheNextHold(1000, "unlock=LockLostException lostEvents=0 watched=0");
    }

    private void assertThePausedHolderLosesTheLockWithoutTouchingTheNextHold(long leaseMillis, String expected) throws Exception {
        holder = WorkerProcess.start("paused-holder", Path.of("target", "reliability", "paused-holder"), PausedHolder.class,
                List.of(Integer.toString(redis.port()), key, Long.toString(leaseMillis), Long.toString(WATCHDOG_MILLIS)));
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> redis.command("LPOP", key + ":held") != null);
        holder.pause();
        try {
            // Taken once the paused holder's lease ran out (its watchdog renews nothing while paused).
            assertThat(second.locker.tryLock(key, 10_000, SECOND_LEASE_MILLIS, TimeUnit.MILLISECONDS)).as("taken by the second instance").isTrue();
        } finally {
            holder.resume();
        }
        long takenAt = System.nanoTime();
        String secondOwner = second.locker.currentOwner();
        redis.command("RPUSH", key + ":go", "go");
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> redis.command("LLEN", key + ":result").equals(1L));
        long sinceTaken = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - takenAt);
        Object pttl = redis.command("PTTL", second.redisKey(key));

        assertThat(redis.command("LPOP", key + ":result")).as("what the resumed holder saw\n" + holder.logTail()).isEqualTo(expected);
        assertThat(redis.command("HGETALL", second.redisKey(key))).asList().as("the lock's fields: the second's only").containsExactly(secondOwner, "1");
        assertThat((Long) pttl).as("the second's lease left: no renewal by the resumed holder raised it")
                .isPositive().isLessThanOrEqualTo(SECOND_LEASE_MILLIS - sinceTaken);
        second.locker.unlock(key); // throws LockLostException had the resumed holder released it
        assertThat(second.lostEvents).isEmpty();
        assertThat(redis.command("EXISTS", second.redisKey(key))).isEqualTo(0L);
    }
}
