package io.github.redislock.core;

import io.github.redislock.RedisMultiLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/** How waiters are woken and when they give up: interrupts, wake-ups passed on, waits bounded when no release message comes. */
class WaitingTest extends TwoInstances {

    @Test
    void lockInterruptiblyOnAnInterruptedThreadThrowsThoughTheLockIsFree() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> first.locker.lockInterruptibly(key)).isInstanceOf(InterruptedException.class).hasMessageContaining(key);
        } finally {
            Thread.interrupted();
        }
        assertThat(first.locker.isLocked(key)).as("lock taken by the interrupted call").isFalse();
        assertThat(first.locker.heldLockCount()).isZero();
    }

    @Test
    void aTimedTryLockOnAnInterruptedThreadThrowsThoughTheLockIsFree() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> first.locker.getLock(key).tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        } finally {
            Thread.interrupted();
        }
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    /**
     * Two multi-locks of one instance wait for key a; a's release wakes one of them, which then finds
     * its other key b taken and waits for b instead. The wake-up it used must reach the other waiter,
     * which can take a and c now, not when a's holder's lease would have ended (20 s).
     */
    @Test
    void aMultiLockWokenForAKeyThatThenWaitsForAnotherPassesTheWakeUpOn() throws Exception {
        String a = "{" + key + "}a";
        String b = "{" + key + "}b";
        String c = "{" + key + "}c";
        second.locker.lock(a, 20);
        second.locker.lock(b, 20);
        // A long watchdog timeout: no bounded retry comes to the rescue within the test's patience.
        try (LockerFixture waiters = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(30))) {
            Future<?> wantsAAndB = threads.submit(() -> holdBriefly(waiters.locker.getMultiLock(a, b)));
            await().atMost(Duration.ofSeconds(5)).until(() -> waiters.subscriptions.waiterCount() == 1);
            Future<?> wantsAAndC = threads.submit(() -> holdBriefly(waiters.locker.getMultiLock(a, c)));
            await().atMost(Duration.ofSeconds(5)).until(() -> waiters.subscriptions.waiterCount() == 2);

            second.locker.unlock(a); // wakes the first waiter, which then finds b taken

            wantsAAndC.get(3, TimeUnit.SECONDS);
            second.locker.unlock(b);
            wantsAAndB.get(3, TimeUnit.SECONDS);
        }
    }

    /**
     * Plain locks pass a lock from holder to queued waiter without a release message; when the last
     * of them lets its lease run out, nothing is published either. A multi-lock waiter that saw the
     * first holder's long lease must look again soon, not when that lease would have ended (20 s).
     */
    @Test
    void aMultiLockWaiterLooksAgainWithinANinthOfTheWatchdogTimeoutWhenPlainLocksHandTheLockOn() throws Exception {
        String other = key + "-other";
        second.locker.lock(key, 20);
        Future<?> multiLock = threads.submit(() -> holdBriefly(first.locker.getMultiLock(key, other)));
        await().atMost(Duration.ofSeconds(5)).until(() -> first.subscriptions.waiterCount() == 1);
        Future<Boolean> queuedPlainWaiter = threads.submit(() -> first.locker.tryLock(key, 10_000, 300, TimeUnit.MILLISECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> first.subscriptions.waiterCount() == 2);

        second.locker.unlock(key); // handed to the queued plain waiter, whose 300 ms lease then runs out unreleased
        assertThat(queuedPlainWaiter.get(3, TimeUnit.SECONDS)).isTrue();

        multiLock.get(300 + 3 * WATCHDOG_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static Void holdBriefly(RedisMultiLock lock) {
        lock.lock();
        lock.unlock();
        return null;
    }
}
