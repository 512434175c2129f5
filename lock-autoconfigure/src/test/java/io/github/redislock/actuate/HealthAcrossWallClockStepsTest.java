package io.github.redislock.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.SteppedWallClock;
import io.github.redislock.core.WatchdogState;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * The health's "locks at risk" (renewals failing for longer than the watchdog timeout) is a matter of
 * elapsed time, which a step of the wall clock must not change: stepped forward, a short failure is no
 * outage; stepped back, a long one still is ({@link SteppedWallClock} plays the step). Both instances
 * renewed once before Redis stops, or none did.
 */
class HealthAcrossWallClockStepsTest {

    private static final Duration AN_HOUR = Duration.ofHours(1);

    private final String key = "health-step-" + UUID.randomUUID();

    @Test
    void aFailureShorterThanTheTimeoutStaysUpThoughTheWallClockSteppedForward() {
        try (RedisServerProcess redis = TestRedis.startNew();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(3))) {
            instance.locker.lock(key);
            WatchdogState watchdog = instance.locker.watchdogState();
            await().atMost(Duration.ofSeconds(3)).until(() -> watchdog.lastRenewal() != null);
            LockHealthReport report;
            redis.pause();
            try {
                await().atMost(Duration.ofSeconds(5)).until(() -> watchdog.consecutiveFailures() > 0);
                report = LockHealthReport.of(SteppedWallClock.view(watchdog, AN_HOUR));
            } finally {
                redis.resume();
            }
            instance.locker.unlock(key);
            assertThat(report.down()).as("DOWN after one failed tick of a 3 s timeout, the wall clock an hour ahead: " + report.details()).isFalse();
        }
    }

    @Test
    void aShortFailureOfAnInstanceThatNeverRenewedStaysUpThoughTheWallClockSteppedForward() {
        try (RedisServerProcess redis = TestRedis.startNew(); LockerFixture instance = lockedAndPausedBeforeAnyRenewal(redis, Duration.ofSeconds(3))) {
            LockHealthReport report;
            try {
                report = LockHealthReport.of(SteppedWallClock.view(instance.locker.watchdogState(), AN_HOUR));
            } finally {
                redis.resume();
            }
            instance.locker.unlock(key);
            assertThat(report.down()).as("DOWN after one failed tick of a 3 s timeout, never renewed, the wall clock an hour ahead: " + report.details()).isFalse();
        }
    }

    @Test
    void aLongFailureOfAnInstanceThatNeverRenewedIsDownThoughTheWallClockSteppedBack() {
        try (RedisServerProcess redis = TestRedis.startNew(); LockerFixture instance = lockedAndPausedBeforeAnyRenewal(redis, Duration.ofSeconds(1))) {
            try {
                await().atMost(Duration.ofSeconds(4)).alias("DOWN once renewals of an instance that never renewed failed longer than the 1 s timeout, the wall clock an hour back")
                        .until(() -> LockHealthReport.of(SteppedWallClock.view(instance.locker.watchdogState(), AN_HOUR.negated())).down());
            } finally {
                redis.resume();
            }
        }
    }

    /**
     * A new instance holding {@link #key}, Redis paused before its watchdog renewed anything, once a tick failed; Redis
     * stays paused. A tick that slipped in between the lock and the pause is not the scenario: tried again on a new instance.
     */
    private LockerFixture lockedAndPausedBeforeAnyRenewal(RedisServerProcess redis, Duration timeout) {
        for (int attempt = 1; ; attempt++) {
            LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), timeout);
            instance.locker.lock(key);
            redis.pause();
            WatchdogState watchdog = instance.locker.watchdogState();
            await().atMost(timeout.plusSeconds(2)).until(() -> watchdog.consecutiveFailures() > 0);
            if (watchdog.lastRenewal() == null) {
                return instance;
            }
            redis.resume();
            instance.locker.unlock(key);
            instance.close();
            assertThat(attempt).as("attempts to pause Redis before the watchdog's first renewal").isLessThan(5);
        }
    }

    @Test
    void aFailureLongerThanTheTimeoutIsDownThoughTheWallClockSteppedBack() {
        try (RedisServerProcess redis = TestRedis.startNew();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(1))) {
            instance.locker.lock(key);
            WatchdogState watchdog = instance.locker.watchdogState();
            await().atMost(Duration.ofSeconds(2)).until(() -> watchdog.lastRenewal() != null);
            redis.pause();
            try {
                await().atMost(Duration.ofSeconds(4)).alias("DOWN once renewals failed longer than the 1 s timeout, the wall clock an hour back")
                        .until(() -> LockHealthReport.of(SteppedWallClock.view(watchdog, AN_HOUR.negated())).down());
            } finally {
                redis.resume();
            }
        }
    }
}
