package io.github.redislock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLock;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The LockRegistry contract on our locks: the scenarios of Spring Integration's own RedisLockRegistry
 * tests that apply to a registry without a local lock cache, and what a re-entry does with a lost hold.
 * Two registries stand for two application instances.
 */
class LockerLockRegistryTest {

    private TwoInstances<RedisLock> instances;
    private LockerFixture first;
    private LockerFixture second;
    private LockerLockRegistry<RedisLock> registry;
    private LockerLockRegistry<RedisLock> otherInstance;
    private String key;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void startInstances() {
        instances = new TwoInstances<>(Duration.ofSeconds(1));
        first = instances.first;
        second = instances.second;
        registry = instances.registry;
        otherInstance = instances.otherInstance;
        key = "registry-" + UUID.randomUUID();
    }

    @AfterEach
    void stopInstances() {
        threads.shutdownNow();
        instances.close();
    }

    @Test
    void aLockTakenAndReleasedLeavesNoKeyInRedis() throws Exception {
        for (int i = 0; i < 3; i++) {
            Lock lock = registry.obtain(key);
            lock.lockInterruptibly();
            try {
                assertThat(first.redis.hasKey(first.redisKey(key))).isTrue();
            } finally {
                lock.unlock();
            }
        }
        assertThat(first.redis.hasKey(first.redisKey(key))).isFalse();
        assertThat(first.locker.heldLockCount()).isZero();
    }

    @Test
    void theLockIsReentrantAndFreeOnlyAfterEveryUnlock() {
        Lock outer = registry.obtain(key);
        outer.lock();
        Lock inner = registry.obtain(key);
        assertThat(inner).isEqualTo(outer).hasSameHashCodeAs(outer);
        inner.lock();
        inner.unlock();
        assertThat(otherInstance.obtain(key).tryLock()).as("another instance, while one hold remains").isFalse();
        outer.unlock();
        assertThat(otherInstance.obtain(key).tryLock()).isTrue();
        otherInstance.obtain(key).unlock();
    }

    @Test
    void twoKeysAreTwoLocksAndTwoRegistriesShareTheirKeys() {
        Lock foo = registry.obtain(key);
        Lock bar = registry.obtain(key + "-bar");
        assertThat(bar).isNotEqualTo(foo);
        assertThat(otherInstance.obtain(key)).as("the same key in another registry").isNotEqualTo(foo);
        foo.lock();
        bar.lock();
        assertThat(otherInstance.obtain(key).tryLock()).isFalse();
        bar.unlock();
        foo.unlock();
    }

    @Test
    void aSecondThreadFailsToGetAHeldLockAndCannotUnlockIt() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lockInterruptibly();
        Future<Object> other = threads.submit(() -> {
            Lock same = registry.obtain(key);
            assertThat(same.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
            try {
                same.unlock();
                return null;
            } catch (IllegalMonitorStateException e) {
                return e;
            }
        });
        assertThat(other.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalMonitorStateException.class)
                .extracting(e -> ((Exception) e).getMessage()).asString().contains(key);
        lock.unlock();
        assertThat(first.redis.hasKey(first.redisKey(key))).isFalse();
    }

    @Test
    void aThreadWaitingInAnotherInstanceGetsTheLockWhenItIsUnlocked() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lockInterruptibly();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = threads.submit(() -> {
            Lock theirs = otherInstance.obtain(key);
            waiting.countDown();
            theirs.lockInterruptibly();
            long start = System.nanoTime();
            theirs.unlock();
            return start;
        });
        assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> second.locker.waiterCount() == 1);
        long released = System.nanoTime();
        lock.unlock();
        long acquired = waiter.get(10, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(acquired - released)).as("handed over, not found by a retry").isLessThan(LockerFixture.WOKEN_WITHIN);
    }

    @Test
    void ofTwoWaitersOnlyOneGetsTheReleasedLock() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lock();
        AtomicInteger winners = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(2);
        LockerFixture third = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(1));
        try {
            for (LockerLockRegistry<RedisLock> waiting : List.of(otherInstance, new LockerLockRegistry<RedisLock>(third.locker))) {
                threads.submit(() -> {
                    if (waiting.obtain(key).tryLock(3, TimeUnit.SECONDS)) {
                        winners.incrementAndGet(); // and keeps it
                    }
                    done.countDown();
                    return null;
                });
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> second.locker.waiterCount() + third.locker.waiterCount() == 2);
            lock.unlock();
            assertThat(done.await(1, TimeUnit.SECONDS)).as("the loser still waits").isFalse();
            assertThat(winners).hasValue(1);
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(winners).hasValue(1);
        } finally {
            third.close();
        }
    }

    @Test
    void aHeldLockOutlivesItsWatchdogTimeoutWhileItsHolderLives() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lock();
        Thread.sleep(1500); // watchdog timeout 1 s
        assertThat(otherInstance.obtain(key).tryLock()).isFalse();
        lock.unlock();
    }

    @Test
    void aFailedTryLockLeavesTheHoldersExpiryAlone() throws Exception {
        RedisLock lock = registry.obtain(key);
        assertThat(lock.tryLock(0, 20, TimeUnit.SECONDS)).isTrue();
        long before = System.nanoTime();
        long expiry = first.redis.getExpire(first.redisKey(key), TimeUnit.MILLISECONDS);
        assertThat(otherInstance.obtain(key).tryLock()).isFalse();
        long after = first.redis.getExpire(first.redisKey(key), TimeUnit.MILLISECONDS);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
        // Neither lengthened nor shortened: it ran down by the time that passed, no more (1 ms for rounding).
        assertThat(after).isLessThanOrEqualTo(expiry).isGreaterThanOrEqualTo(expiry - elapsed - 1);
        lock.unlock();
    }

    @Test
    void theUnlockOfALockThatExpiredUnderItsLeaseThrowsAndLeavesTheNewHolderAlone() throws Exception {
        RedisLock lock = registry.obtain(key);
        assertThat(lock.tryLock(0, 200, TimeUnit.MILLISECONDS)).isTrue();
        Lock theirs = otherInstance.obtain(key);
        assertThat(theirs.tryLock(3, TimeUnit.SECONDS)).as("free once the lease ran out").isTrue();
        assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock).withMessageContaining(key);
        assertThat(otherInstance.obtain(key).tryLock()).as("still the new holder's").isTrue();
        theirs.unlock();
        theirs.unlock();
        assertThat(first.redis.hasKey(first.redisKey(key))).isFalse();
    }

    @Test
    void aReentryIntoAHoldThatRedisLostFailsInsteadOfTakingTheLockAnew() {
        Lock lock = registry.obtain(key);
        lock.lock();
        first.redis.delete(first.redisKey(key)); // lost before the watchdog looked

        assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::lock).withMessageContaining(key);

        assertThat(first.redis.hasKey(first.redisKey(key))).as("the re-entry left nothing held").isFalse();
        assertThat(first.locker.heldLockCount()).isZero();
        assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
        assertThat(lock.tryLock()).as("a fresh acquisition").isTrue();
        lock.unlock();
    }

    @Test
    void aReentryIntoAHoldWhoseTokenIsKeptThatRedisLostFailsInsteadOfTakingTheLockAnew() {
        Lock lock = registry.obtain(key);
        lock.lock();
        lock.lock(); // the first re-entry draws the hold's token, kept for the next
        lock.unlock();
        first.redis.delete(first.redisKey(key)); // lost before the watchdog looked

        assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::lock).withMessageContaining(key)
                .withMessageContaining("Redis no longer had it");

        assertThat(first.redis.hasKey(first.redisKey(key))).as("the re-entry left nothing held").isFalse();
        assertThat(first.locker.heldLockCount()).isZero();
    }

    @Test
    void aReentryIntoAHoldTheWatchdogFoundGoneFailsAndTheThreadHoldsNothing() {
        Lock lock = registry.obtain(key);
        lock.lock();
        first.redis.delete(first.redisKey(key));
        await().atMost(Duration.ofSeconds(5)).until(() -> !first.lostEvents.isEmpty());

        assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::tryLock).withMessageContaining("watchdog");

        assertThat(first.locker.heldLockCount()).isZero();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void aReentryWhileAnotherInstanceTookTheLostLockFailsAndTheThreadHoldsNothing() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lock();
        first.redis.delete(first.redisKey(key));
        Lock theirs = otherInstance.obtain(key);
        assertThat(theirs.tryLock()).isTrue();

        // the re-entry draws the hold's token first, which finds the hold gone in Redis (issue 33: no longer a false from the try)
        assertThatExceptionOfType(LockLostException.class).isThrownBy(() -> lock.tryLock(100, TimeUnit.MILLISECONDS)).withMessageContaining(key);

        assertThat(first.locker.heldLockCount()).isZero();
        assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
        theirs.unlock();
    }

    @Test
    void renewLockRenewsTheCallersLockToTheFullWatchdogTimeout() throws Exception {
        Lock lock = registry.obtain(key);
        lock.lock();
        first.redis.expire(first.redisKey(key), Duration.ofMillis(300));
        registry.renewLock(key);
        assertThat(first.redis.getExpire(first.redisKey(key), TimeUnit.MILLISECONDS)).isGreaterThan(900);
        assertThat(first.redis.opsForHash().get(first.redisKey(key), first.locker.getClientId() + ":" + Thread.currentThread().getId()))
                .as("the renewal's re-entry is released again").isEqualTo("1");
        lock.unlock();
        assertThat(first.redis.hasKey(first.redisKey(key))).isFalse();
    }

    @Test
    void renewLockWithATimeToLiveKeepsTheLockThatLongEvenPastItsLease() throws Exception {
        RedisLock lock = registry.obtain(key);
        assertThat(lock.tryLock(0, 200, TimeUnit.MILLISECONDS)).isTrue();
        registry.renewLock(key, Duration.ofSeconds(3));
        Thread.sleep(400);
        assertThat(otherInstance.obtain(key).tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
        lock.unlock();
    }

    @Test
    void renewLockOfALockTakenWithALeaseRenewsThatLeaseWhichTheWatchdogStillLeavesAlone() throws Exception {
        RedisLock lock = registry.obtain(key);
        assertThat(lock.tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue();
        registry.renewLock(key);

        assertThat(first.locker.watchdogState().watchedCount()).as("still a lease: the watchdog must not keep it forever").isZero();
        assertThat(first.redis.getExpire(first.redisKey(key), TimeUnit.MILLISECONDS)).as("renewed for its lease again").isBetween(1L, 300L);
        Lock theirs = otherInstance.obtain(key);
        assertThat(theirs.tryLock(3, TimeUnit.SECONDS)).as("free once the renewed lease ran out").isTrue();
        assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock).withMessageContaining(key);
        theirs.unlock();
    }

    @Test
    void renewLockOfALockTheCallerDoesNotHoldThrowsNamingTheKey() throws Exception {
        registry.obtain(key);
        assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(() -> registry.renewLock(key)).withMessageContaining(key);
        Lock theirs = otherInstance.obtain(key);
        theirs.lock();
        assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(() -> registry.renewLock(key));
        theirs.unlock();
        assertThatThrownBy(() -> registry.renewLock(key, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key);
    }

    @Test
    void aKeyThatIsNoStringIsRefusedNamingIt() {
        assertThatThrownBy(() -> registry.obtain(42)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("42");
        assertThatThrownBy(() -> registry.obtain(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void executeLockedRunsTheTaskUnderTheLockAndReleasesIt() throws Exception {
        String result = registry.executeLocked(key, () -> {
            assertThat(otherInstance.obtain(key).tryLock()).isFalse();
            return "ran";
        });
        assertThat(result).isEqualTo("ran");
        assertThat(first.redis.hasKey(first.redisKey(key))).isFalse();
    }

    @Test
    void theLockHandsOutTheFencingTokenOfItsHold() throws Exception {
        RedisLock lock = registry.obtain(key);
        lock.lock();
        long token = lock.fencingToken();
        lock.unlock();
        RedisLock theirs = otherInstance.obtain(key);
        theirs.lock();
        assertThat(theirs.fencingToken()).isGreaterThan(token);
        theirs.unlock();
    }
}
