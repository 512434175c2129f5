package io.github.redislock.core;

import io.github.redislock.RedisMultiLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/** Several keys all or nothing, across instances. */
class MultiLockTest extends TwoInstances {

    @Test
    void takesEveryKeyAndReleasesEveryKey() {
        RedisMultiLock lock = first.locker.getMultiLock(key + "-a", key + "-b", key + "-c");
        lock.lock();
        for (String each : lock.getKeys()) {
            assertThat(first.locker.isHeldByCurrentThread(each)).as(each).isTrue();
            assertThat(second.locker.tryLock(each)).as(each).isFalse();
        }
        lock.unlock();
        for (String each : lock.getKeys()) {
            assertThat(first.locker.isLocked(each)).as(each).isFalse();
        }
    }

    @Test
    void keysInDifferentSlotsAreGivenBackWhenALaterOneIsHeldElsewhere() {
        List<String> keys = first.locker.getMultiLock(keysInDistinctSlots(3)).getKeys();
        second.locker.lock(keys.get(2)); // the last one taken

        assertThat(first.locker.getMultiLock(keys.toArray(String[]::new)).tryLock()).isFalse();
        assertThat(first.locker.isLocked(keys.get(0))).isFalse();
        assertThat(first.locker.isLocked(keys.get(1))).isFalse();
        assertThat(first.locker.heldLockCount()).isZero();
        second.locker.unlock(keys.get(2));
    }

    private String[] keysInDistinctSlots(int count) {
        Map<Integer, String> bySlot = new TreeMap<>();
        for (int i = 0; bySlot.size() < count; i++) {
            String candidate = key + "-" + i;
            bySlot.putIfAbsent(ClusterSlotHashUtil.calculateSlot(LockerFixture.PREFIX + candidate), candidate);
        }
        return bySlot.values().toArray(String[]::new);
    }

    @Test
    void keysSharingAHashTagAreTakenAndReleasedInOneScriptCallEach() throws InterruptedException {
        try (RedisServerProcess redis = TestRedis.startNew();
             LockerFixture one = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
             LockerFixture other = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT)) {
            RedisMultiLock lock = one.locker.getMultiLock("{order-1}:stock", "{order-1}:payment", "{order-1}:invoice");
            // Leased, so no watchdog renewal can fall into the counted window.
            assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue(); // the first call on a fresh server also loads the script
            lock.unlock();
            long before = scriptCalls(redis);
            assertThat(lock.tryLock(0, 10, TimeUnit.SECONDS)).isTrue();
            assertThat(scriptCalls(redis) - before).as("script calls to lock").isEqualTo(1);
            lock.unlock();
            assertThat(scriptCalls(redis) - before).as("script calls to lock and unlock").isEqualTo(2);
            assertThat(one.locker.isLocked("{order-1}:stock")).isFalse();

            other.locker.lock("{order-1}:payment");
            assertThat(lock.tryLock()).isFalse();
            assertThat(one.locker.isLocked("{order-1}:stock")).isFalse();
            assertThat(one.locker.isLocked("{order-1}:invoice")).isFalse();
            other.locker.unlock("{order-1}:payment");
        }
    }

    private static long scriptCalls(RedisServerProcess redis) {
        return redis.commandCount("evalsha") + redis.commandCount("eval");
    }

    @Test
    void aWaiterIsWokenByTheReleaseOfTheKeyThatBlockedIt() throws Exception {
        String blocker = key + "-b";
        first.locker.lock(blocker, 30); // a multi-lock waiter looks again on its own when this lease ends
        try (LockerFixture patient = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), LockerFixture.SLOW_RETRIES)) {
            ExecutorService waiter = Executors.newSingleThreadExecutor();
            try {
                Future<Long> acquiredAt = waiter.submit(() -> {
                    RedisMultiLock lock = patient.locker.getMultiLock(key + "-a", blocker);
                    assertThat(lock.tryLock(10, -1, TimeUnit.SECONDS)).isTrue();
                    long at = System.nanoTime();
                    lock.unlock();
                    return at;
                });
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> patient.subscriptions.waiterCount() == 1);

                long releasedAt = System.nanoTime();
                first.locker.unlock(blocker);

                assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(15, TimeUnit.SECONDS) - releasedAt)).as("ms from the release until the waiter held both keys")
                        .isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
            } finally {
                waiter.shutdownNow();
            }
        }
    }

    @Test
    void eachKeyIsReentrantAndKeepsItsOwnFencingToken() {
        first.locker.lock(key + "-a");
        long tokenOfA = first.locker.fencingToken(key + "-a");
        RedisMultiLock lock = first.locker.getMultiLock(key + "-a", key + "-b");
        lock.lock();
        assertThat(first.locker.getHoldCount(key + "-a")).isEqualTo(2);
        assertThat(lock.fencingToken(key + "-a")).isEqualTo(tokenOfA);
        assertThat(lock.fencingToken(key + "-b")).isPositive();
        lock.unlock();
        assertThat(first.locker.getHoldCount(key + "-a")).isEqualTo(1);
        assertThat(first.locker.isLocked(key + "-b")).isFalse();
        first.locker.unlock(key + "-a");
    }

    @Test
    void opposingKeyOrdersFromTwoInstancesNeitherDeadlockNorOverlap() throws Exception {
        String a = key + "-a";
        String b = key + "-b";
        try (OverlapDetector section = new OverlapDetector(first.redis, "counter-" + key)) {
            List<Callable<?>> workers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                LockerFixture instance = t % 2 == 0 ? first : second;
                String[] order = t % 4 < 2 ? new String[] {a, b} : new String[] {b, a};
                workers.add(() -> {
                    RedisMultiLock lock = instance.locker.getMultiLock(order);
                    for (int i = 0; i < 20; i++) {
                        lock.lock();
                        try {
                            section.pass();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                });
            }
            Together.run(workers);
            section.assertEveryPassWasAlone(8 * 20);
        }
        assertThat(first.locker.isLocked(a) || first.locker.isLocked(b)).isFalse();
    }

    @Test
    void unlockingAMultiLockNotFullyHeldReleasesNothing() {
        first.locker.lock(key + "-a");
        assertThatThrownBy(() -> first.locker.getMultiLock(key + "-a", key + "-b").unlock())
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(key + "-b")
                .hasMessageContaining("nothing was released");
        assertThat(first.locker.getHoldCount(key + "-a")).isEqualTo(1);
        first.locker.unlock(key + "-a");
    }

    @Test
    void aMultiLockWithoutKeysIsRefused() {
        assertThatThrownBy(() -> first.locker.getMultiLock()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one key");
        assertThatThrownBy(() -> first.locker.getMultiLock("ok", " ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blank");
    }
}
