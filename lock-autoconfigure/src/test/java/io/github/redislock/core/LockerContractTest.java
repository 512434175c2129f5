package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.Locker;
import io.github.redislock.LockLostException;
import io.github.redislock.LockLostEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lock's behaviour, specified against a real Redis. Subclasses say which Redis: a redis-server
 * process started by the tests, or container images where Docker is available.
 */
abstract class LockerContractTest {

    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(1);

    /** Two application instances on the same Redis. */
    LockerFixture first;
    LockerFixture second;
    String key;

    abstract String redisHost();

    abstract int redisPort();

    /** One application instance on that Redis; on Lettuce unless a subclass says otherwise. */
    LockerFixture connect() {
        return LockerFixture.connect(redisHost(), redisPort(), WATCHDOG_TIMEOUT);
    }

    @BeforeEach
    void startInstances() {
        first = connect();
        second = connect();
        key = "contract-" + UUID.randomUUID();
    }

    @AfterEach
    void stopInstances() {
        first.close();
        second.close();
    }

    @Test
    void theSameThreadReentersAndCountsItsHolds() {
        Locker locker = first.locker;
        locker.lock(key);
        locker.lock(key);
        assertThat(locker.tryLock(key)).isTrue();
        assertThat(locker.getHoldCount(key)).isEqualTo(3);

        locker.unlock(key);
        locker.unlock(key);
        assertThat(locker.getHoldCount(key)).isEqualTo(1);
        assertThat(locker.isLocked(key)).isTrue();

        locker.unlock(key);
        assertThat(locker.getHoldCount(key)).isZero();
        assertThat(locker.isLocked(key)).isFalse();
        assertThat(first.redis.hasKey(first.redisKey(key))).isFalse();
    }

    @Test
    void theLockHashHasOneFieldPerOwnerHoldingTheHoldCount() {
        first.locker.lock(key);
        first.locker.lock(key);
        String field = first.locker.getClientId() + ":" + Thread.currentThread().getId();
        assertThat(first.redis.opsForHash().entries(first.redisKey(key))).containsExactly(java.util.Map.entry(field, "2"));
        first.locker.unlock(key);
        first.locker.unlock(key);
    }

    @Test
    void anotherInstanceCanNeitherTakeNorReleaseAHeldLock() {
        first.locker.lock(key);

        assertThat(second.locker.tryLock(key)).isFalse();
        assertThatThrownBy(() -> second.locker.unlock(key))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(key)
                .hasMessageContaining(second.locker.getClientId());
        assertThat(second.locker.isLocked(key)).isTrue();
        assertThat(second.locker.isHeldByCurrentThread(key)).isFalse();
        assertThat(first.locker.isHeldByCurrentThread(key)).isTrue();

        first.locker.unlock(key);
        assertThat(second.locker.tryLock(key)).isTrue();
        second.locker.unlock(key);
    }

    @Test
    void anotherThreadOfTheSameInstanceCannotReleaseIt() throws Exception {
        first.locker.lock(key);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<?> unlock = other.submit(() -> first.locker.unlock(key));
            assertThatThrownBy(unlock::get).hasCauseInstanceOf(IllegalMonitorStateException.class);
            assertThat(other.submit(() -> first.locker.tryLock(key)).get()).isFalse();
        } finally {
            other.shutdownNow();
        }
        first.locker.unlock(key);
    }

    @Test
    void aLockTakenForAnOwnerTokenIsReleasedFromAnotherThreadWithTheSameToken() throws Exception {
        String token = UUID.randomUUID().toString();
        assertThat(first.locker.tryLockAs(token, key, 0, -1, TimeUnit.SECONDS)).isTrue();
        assertThat(first.locker.tryLockAs(token, key, 0, -1, TimeUnit.SECONDS)).as("reentrant per token").isTrue();
        assertThat(first.locker.tryLock(key)).as("the calling thread is not the owner").isFalse();
        assertThatThrownBy(() -> first.locker.unlock(key)).isInstanceOf(IllegalMonitorStateException.class);

        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            other.submit(() -> {
                first.locker.unlockAs(token, key);
                first.locker.unlockAs(token, key);
            }).get(5, TimeUnit.SECONDS);
        } finally {
            other.shutdownNow();
        }
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void aLeasedLockExpiresWithoutUnlockAndItsLateUnlockReportsTheLoss() throws Exception {
        assertThat(first.locker.tryLock(key, 0, 300, TimeUnit.MILLISECONDS)).isTrue();
        long pttl = first.redis.getExpire(first.redisKey(key), TimeUnit.MILLISECONDS);
        assertThat(pttl).isBetween(1L, 300L);

        await().atMost(Duration.ofSeconds(3)).until(() -> !second.locker.isLocked(key));
        assertThat(second.locker.tryLock(key)).isTrue();
        assertThatThrownBy(() -> first.locker.unlock(key))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("lease of 300 ms expired");
        second.locker.unlock(key);
    }

    @Test
    void aWaiterIsWokenByTheReleaseMessageLongBeforeTheHoldersLeaseEnds() throws Exception {
        first.locker.lock(key, 20);
        try (LockerFixture patient = LockerFixture.connect(redisHost(), redisPort(), LockerFixture.SLOW_RETRIES)) {
            ExecutorService waiterThread = Executors.newSingleThreadExecutor();
            try {
                Future<Long> acquiredAt = waiterThread.submit(() -> {
                    assertThat(patient.locker.tryLock(key, 15, -1, TimeUnit.SECONDS)).isTrue();
                    long at = System.nanoTime();
                    patient.locker.unlock(key);
                    return at;
                });
                // Released right after the waiter parks: its own next look at the lock is a whole retry period away.
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> patient.subscriptions.waiterCount() == 1);

                long releasedAt = System.nanoTime();
                first.locker.unlock(key);

                long wokenAfterMillis = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(10, TimeUnit.SECONDS) - releasedAt);
                assertThat(wokenAfterMillis).as("ms from the release until the waiter held the lock").isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
            } finally {
                waiterThread.shutdownNow();
            }
        }
    }

    @Test
    void aWaiterTakesALockWhoseHolderDiedOnceItsLeaseRunsOut() throws Exception {
        first.locker.lock(key, TimeUnit.MILLISECONDS, 500);
        first.close(); // the instance dies without unlocking: no release message is ever published
        long start = System.nanoTime();
        assertThat(second.locker.tryLock(key, 5, -1, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2000);
        second.locker.unlock(key);
        first = LockerFixture.connect(redisHost(), redisPort(), WATCHDOG_TIMEOUT);
    }

    @Test
    void tryLockGivesUpWhenTheWaitRunsOut() throws Exception {
        first.locker.lock(key);
        long start = System.nanoTime();
        assertThat(second.locker.tryLock(key, 300, -1, TimeUnit.MILLISECONDS)).isFalse();
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(waited).isBetween(300L, 2000L);
        assertThat(second.locker.heldLockCount()).isZero();
        first.locker.unlock(key);
    }

    @Test
    void onlyOneOwnerAtATimeUnderContentionFromTwoInstances() throws Exception {
        int threadsPerInstance = 8;
        int sectionsPerThread = 25;
        try (OverlapDetector section = new OverlapDetector(first.redis, "counter-" + key)) {
            List<Callable<?>> workers = new ArrayList<>();
            for (LockerFixture instance : List.of(first, second)) {
                for (int t = 0; t < threadsPerInstance; t++) {
                    workers.add(() -> {
                        for (int i = 0; i < sectionsPerThread; i++) {
                            instance.locker.lock(key);
                            try {
                                section.pass();
                            } finally {
                                instance.locker.unlock(key);
                            }
                        }
                        return null;
                    });
                }
            }
            Together.run(workers);
            section.assertEveryPassWasAlone(2 * threadsPerInstance * sectionsPerThread);
        }
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void interruptsArrivingDuringRedisCallsNeverLeaveALockHalfTakenOrHalfReleased() throws Exception {
        int cycles = 150;
        first.locker.isLocked(key); // connected: what is interrupted below are lock commands
        CountDownLatch done = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        Thread worker = new Thread(() -> {
            try {
                for (int i = 0; i < cycles; i++) {
                    first.locker.lock(key);
                    first.locker.lock(key);
                    first.locker.unlock(key);
                    first.locker.unlock(key);
                }
            } catch (Throwable t) {
                failure.set(t);
            } finally {
                done.countDown();
            }
        });
        worker.start();
        while (!done.await(50, TimeUnit.MICROSECONDS)) {
            worker.interrupt();
        }
        assertThat(failure.get()).as("failure of the interrupted worker").isNull();
        assertThat(first.locker.isLocked(key)).isFalse();
        assertThat(first.locker.heldLockCount()).isZero();
    }

    @Test
    void theWatchdogReportsALockWhoseKeyWasDeletedAndItsUnlockThrows() {
        first.locker.lock(key);
        first.redis.delete(first.redisKey(key));

        await().atMost(Duration.ofSeconds(3)).until(() -> !first.lostEvents.isEmpty());
        LockLostEvent event = first.lostEvents.get(0);
        assertThat(event.getKey()).isEqualTo(key);
        assertThat(event.getRedisKey()).isEqualTo(first.redisKey(key));
        assertThat(event.getOwner()).startsWith(first.locker.getClientId() + ":");

        assertThatThrownBy(() -> first.locker.unlock(key))
                .isInstanceOf(LockLostException.class)
                .hasMessageContaining(key);
        assertThat(first.watchdog.watchedCount()).isZero();
    }

    @Test
    void waitersLeaveNoSubscriptionBehind() throws Exception {
        first.locker.lock(key);
        ExecutorService waiters = Executors.newFixedThreadPool(3);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                results.add(waiters.submit(() -> {
                    boolean taken = second.locker.tryLock(key, 5, -1, TimeUnit.SECONDS);
                    if (taken) {
                        second.locker.unlock(key);
                    }
                    return taken;
                }));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> second.subscriptions.waiterCount() == 3);
            first.locker.unlock(key);
            for (Future<Boolean> result : results) {
                assertThat(result.get(10, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            waiters.shutdownNow();
        }
        String channel = LockKeys.of(LockerFixture.PREFIX, key).channel();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(second.subscriptions.subscribedChannelCount()).isZero();
            assertThat(numsub(channel)).isZero();
        });
    }

    /** Subscribers Redis counts on a channel, over all connections. */
    private long numsub(String channel) {
        return first.redis.execute((org.springframework.data.redis.core.RedisCallback<Long>) connection -> {
            if (!(connection.getNativeConnection() instanceof io.lettuce.core.api.async.RedisAsyncCommands<?, ?> lettuce)) {
                // Jedis: the raw reply, [channel, count]
                return (Long) ((List<?>) connection.execute("PUBSUB", "NUMSUB".getBytes(), channel.getBytes())).get(1);
            }
            @SuppressWarnings("unchecked")
            var commands = (io.lettuce.core.api.async.RedisAsyncCommands<byte[], byte[]>) lettuce;
            try {
                return commands.pubsubNumsub(channel.getBytes()).get(5, TimeUnit.SECONDS).values().iterator().next();
            } catch (Exception e) {
                throw new IllegalStateException("PUBSUB NUMSUB failed", e);
            }
        });
    }
}
