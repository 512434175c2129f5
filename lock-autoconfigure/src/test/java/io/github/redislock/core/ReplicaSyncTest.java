package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.LockRedisException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code redis-lock.replica-sync} covers every path that grants a lock, not only the plain acquire
 * script. The shared test Redis has no replica, so every grant must fail, released again.
 */
class ReplicaSyncTest extends TwoInstances {

    LockerFixture synced;

    @BeforeEach
    void connectSynced() {
        synced = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), WATCHDOG_TIMEOUT, Duration.ofSeconds(5),
                Duration.ofMillis(100));
    }

    @AfterEach
    void closeSynced() {
        threads.shutdownNow();
        synced.close();
    }

    @Test
    void aFairAcquisitionNoReplicaAcknowledgedFailsAndIsReleased() {
        assertThatThrownBy(() -> synced.locker.getFairLock(key).tryLock()).isInstanceOf(LockRedisException.class)
                .hasMessageContaining("no replica acknowledged");
        assertThat(first.locker.isLocked(key)).as("left held").isFalse();
    }

    @Test
    void aReadAcquisitionNoReplicaAcknowledgedFailsAndIsReleased() {
        assertThatThrownBy(() -> synced.locker.getReadWriteLock(key).readLock().tryLock()).isInstanceOf(LockRedisException.class)
                .hasMessageContaining("no replica acknowledged");
        assertThat(first.locker.isLocked(key)).as("left held").isFalse();
        assertThat(first.redis.hasKey(LockKeys.of(LockerFixture.PREFIX, key).leases())).as("lease set left").isFalse();
    }

    @Test
    void aHandOffNoReplicaAcknowledgedFailsTheWaiterAndPassesTheLockOn() throws Exception {
        first.locker.lock(key);
        Future<Boolean> waiter = threads.submit(() -> synced.locker.tryLock(key, 10, -1, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> Long.valueOf(1).equals(first.redis.opsForList().size(LockKeys.of(LockerFixture.PREFIX, key).waitQueue())));

        first.locker.unlock(key);

        assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LockRedisException.class)
                .hasMessageContaining("no replica acknowledged");
        assertThat(first.locker.isLocked(key)).as("left held for the waiter that failed").isFalse();
        assertThat(synced.locker.heldLockCount()).isZero();
    }
}
