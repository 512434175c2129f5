package io.github.redislock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Wrong calls get an exception that names the problem, and leave no lock or subscription behind. */
class BadInputTest {

    LockerFixture instance;
    Locker locker;

    @BeforeEach
    void connect() {
        instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
        locker = instance.locker;
    }

    @AfterEach
    void disconnect() {
        assertThat(instance.locker.heldLockCount()).as("locks left held").isZero();
        assertThat(instance.subscriptions.waiterCount()).as("waiters left subscribed").isZero();
        instance.close();
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "   ", "\t"})
    void aNullOrBlankKeyIsRefused(String key) {
        assertThatThrownBy(() -> locker.lock(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Lock key must not be null or blank");
        assertThatThrownBy(() -> locker.tryLock(key)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locker.getLock(key)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aKeyLongerThanTheLimitIsRefused() {
        String key = "k".repeat(LockKeys.MAX_KEY_LENGTH + 1);
        assertThatThrownBy(() -> locker.lock(key))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limit of " + LockKeys.MAX_KEY_LENGTH);
        assertThat(locker.tryLock("k".repeat(LockKeys.MAX_KEY_LENGTH))).isTrue();
        locker.unlock("k".repeat(LockKeys.MAX_KEY_LENGTH));
    }

    @Test
    void aNegativeWaitOtherThanMinusOneIsRefused() {
        assertThatThrownBy(() -> locker.tryLock("w", -5, -1, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Wait time for lock 'w'")
                .hasMessageContaining("-5 SECONDS");
    }

    @Test
    void aZeroOrNegativeLeaseOtherThanMinusOneIsRefused() {
        assertThatThrownBy(() -> locker.tryLock("l", 0, 0, TimeUnit.SECONDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Lease time for lock 'l' must be positive, or -1");
        assertThatThrownBy(() -> locker.lock("l", -7))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-7 SECONDS");
    }

    @Test
    void aLeaseThatOverflowsOrRoundsToNothingIsRefused() {
        assertThatThrownBy(() -> locker.tryLock("l", 0, Long.MAX_VALUE, TimeUnit.DAYS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 ms and 365 days");
        assertThatThrownBy(() -> locker.tryLock("l", 0, 10, TimeUnit.MICROSECONDS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 ms and 365 days");
    }

    @Test
    void aMissingTimeUnitIsNamed() {
        assertThatThrownBy(() -> locker.tryLock("u", 1, -1, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("TimeUnit for lock 'u'");
    }

    @Test
    void anEnormousWaitIsTreatedAsWaitingForever() throws Exception {
        assertThat(locker.tryLock("forever", Long.MAX_VALUE, -1, TimeUnit.DAYS)).isTrue();
        locker.unlock("forever");
    }

    @Test
    void unlockingALockNeverTakenNamesKeyAndOwner() {
        assertThatThrownBy(() -> locker.unlock("never"))
                .isInstanceOf(IllegalMonitorStateException.class)
                .isNotInstanceOf(LockLostException.class)
                .hasMessageContaining("'never'")
                .hasMessageContaining("lock:never")
                .hasMessageContaining(instance.locker.getClientId());
    }

    @Test
    void aSecondUnlockAfterTheFinalOneIsRefused() {
        locker.lock("twice");
        locker.unlock("twice");
        assertThatThrownBy(() -> locker.unlock("twice")).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void conditionsAreNotSupported() {
        assertThatThrownBy(() -> locker.getLock("c").newCondition())
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("'c'");
    }

    @Test
    void aKeyHoldingAnotherTypeOfValueFailsWithTheKeyNamed() {
        instance.redis.opsForValue().set("lock:not-a-hash", "x");
        try {
            assertThatThrownBy(() -> locker.lock("not-a-hash"))
                    .isInstanceOf(LockRedisException.class)
                    .hasMessageContaining("lock:not-a-hash")
                    .hasMessageContaining("WRONGTYPE");
        } finally {
            instance.redis.delete("lock:not-a-hash");
        }
    }

    @Test
    void aClosedLockerRefusesWork() {
        instance.locker.close();
        assertThatThrownBy(() -> locker.tryLock("late"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Locker is closed");
    }

    @Test
    void anInterruptedWaitThrowsAndLeavesNoSubscription() throws Exception {
        try (LockerFixture holder = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1))) {
            holder.locker.lock("busy");
            ExecutorService waiter = Executors.newSingleThreadExecutor();
            try {
                Future<Boolean> waiting = waiter.submit(() -> locker.tryLock("busy", 30, -1, TimeUnit.SECONDS));
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> instance.subscriptions.waiterCount() == 1);
                waiter.shutdownNow(); // interrupts the waiting thread
                assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(InterruptedException.class);
            } finally {
                waiter.shutdownNow();
            }
            holder.locker.unlock("busy");
        }
    }

    @Test
    void anInterruptedThreadCanStillLockWithoutWaitingAndUnlock() {
        Thread.currentThread().interrupt();
        try {
            locker.lock("interrupted");
            locker.unlock("interrupted");
            assertThat(Thread.currentThread().isInterrupted()).as("interrupt flag kept").isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void anUnreachableRedisFailsWithinTheCommandTimeoutWithLockRedisException() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (LockerFixture unreachable = LockerFixture.connect("127.0.0.1", closedPort, Duration.ofSeconds(1), Duration.ofMillis(500))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> unreachable.locker.tryLock("down", 1, -1, TimeUnit.SECONDS))
                    .isInstanceOf(LockRedisException.class)
                    .hasMessageContaining("lock:down");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);
            assertThat(unreachable.subscriptions.waiterCount()).isZero();
            assertThat(unreachable.locker.heldLockCount()).isZero();
        }
    }
}
