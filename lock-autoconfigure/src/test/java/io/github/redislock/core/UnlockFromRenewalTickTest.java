package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LockObserver;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A lock observer told, on the watchdog's thread, of a lock whose owner thread ended runs inside the tick that
 * holds the renewal gate; an unlock it makes there unwatches its lock, and must not wait for that gate.
 */
class UnlockFromRenewalTickTest {

    @Test
    @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a tick stuck on its own gate would hold up the close too
    void anObserverThatUnlocksWhenToldOfAnEndedOwnerThreadUnlocksFromWithinTheTick() throws Exception {
        String ended = "ended-owner-" + UUID.randomUUID();
        String job = "job-" + UUID.randomUUID();
        LettuceConnectionFactory connectionFactory = LockerFixture.startedLettuce(TestRedis.shared().host(), TestRedis.shared().port(),
                Duration.ofSeconds(5));
        AtomicReference<RedisLocker> lockers = new AtomicReference<>();
        AtomicReference<Throwable> unlockFailure = new AtomicReference<>();
        CountDownLatch unlocked = new CountDownLatch(1);
        LockObserver unlocksTheJob = new LockObserver() {
            @Override
            public void lost(ObservedLock lock, boolean byWatchdog) {
                try {
                    lockers.get().unlockAs("invocation", job);
                } catch (RuntimeException | Error e) {
                    unlockFailure.set(e);
                }
                unlocked.countDown();
            }
        };
        try (RedisLocker locker = RedisLocker.builder(connectionFactory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(Duration.ofMillis(600))
                .observer(unlocksTheJob).build()) {
            lockers.set(locker);
            assertThat(locker.tryLockAs("invocation", job, 0, -1, TimeUnit.MILLISECONDS)).isTrue();
            Thread owner = new Thread(() -> locker.lock(ended));
            owner.start();
            owner.join(5000);

            assertThat(unlocked.await(5, TimeUnit.SECONDS)).as("the observer's unlock returned within the tick").isTrue();
            assertThat(unlockFailure.get()).isNull();
            assertThat(locker.isLocked(job)).isFalse();
            assertThat(locker.watchdogState().watchedCount()).isZero();
        } finally {
            LockerFixture.destroyWithin(connectionFactory, Duration.ofSeconds(5));
        }
    }
}
