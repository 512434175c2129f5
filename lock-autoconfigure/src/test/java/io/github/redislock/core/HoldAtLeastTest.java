package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;

import org.junit.jupiter.api.Test;

/**
 * A release with a shortest hold ({@code holdAtLeast}): a final release sooner than that after the
 * lock was taken keeps the lock in Redis, owned by nobody, renewed by nobody, until then. The watchdog
 * timeout of these instances is 1 s.
 */
class HoldAtLeastTest extends TwoInstances {

    private static final Duration HOLD_AT_LEAST = Duration.ofMillis(600);

    @Test
    void aFinalReleaseSoonerKeepsTheLockUntilHoldAtLeastAfterItWasTaken() throws Exception {
        long beforeTaken = System.nanoTime();
        assertThat(first.locker.tryLock(key)).isTrue();
        first.locker.unlock(key, HOLD_AT_LEAST);

        assertThat(first.locker.isLocked(key)).isTrue();
        assertThat(second.locker.tryLock(key, 0, -1, TimeUnit.MILLISECONDS)).isFalse();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(5)).until(() -> !first.locker.isLocked(key));
        assertThat(Duration.ofNanos(System.nanoTime() - beforeTaken)).isGreaterThanOrEqualTo(HOLD_AT_LEAST);
        assertThat(first.locker.heldLockCount()).isZero();
    }

    @Test
    void aKeptLockIsOwnedByNobodySoTheThreadThatReleasedItCannotTakeItAgain() throws Exception {
        first.locker.lock(key);
        first.locker.unlock(key, HOLD_AT_LEAST);

        Map<Object, Object> fields = first.redis.opsForHash().entries(first.redisKey(key));
        assertThat(fields).containsOnlyKeys("kept").containsEntry("kept", first.locker.currentOwner());
        assertThat(first.locker.isHeldByCurrentThread(key)).isFalse();
        assertThat(first.locker.tryLock(key)).isFalse();
        assertThatThrownBy(() -> first.locker.unlock(key)).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void theWatchdogDoesNotRenewAKeptLockSoItEndsBeforeTheWatchdogTimeout() {
        first.locker.lock(key);
        first.locker.unlock(key, Duration.ofMillis(300));

        assertThat(first.redis.getExpire(first.redisKey(key), TimeUnit.MILLISECONDS)).isBetween(1L, 300L);
        assertThat(first.watchdog.watchedCount()).isZero();
        await().atMost(WATCHDOG_TIMEOUT).pollInterval(Duration.ofMillis(10)).until(() -> !first.locker.isLocked(key));
    }

    @Test
    void aReleaseAfterHoldAtLeastFreesTheLockAndHandsItToTheWaiter() throws Exception {
        Duration holdAtLeast = Duration.ofMillis(100);
        first.locker.lock(key);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return second.locker.tryLock(key, 5, 30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(3)).until(() -> first.redis.opsForList().size(LockKeys.of(LockerFixture.PREFIX, key).waitQueue()) == 1);
        Thread.sleep(holdAtLeast.toMillis() + 20);

        first.locker.unlock(key, holdAtLeast);

        assertThat(waiter.get(LockerFixture.WOKEN_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(first.redis.opsForHash().hasKey(first.redisKey(key), "kept")).isFalse();
    }

    @Test
    void aReleaseOfAReenteredHoldIsUnaffectedAndTheFinalOneKeeps() {
        first.locker.lock(key);
        first.locker.lock(key);

        first.locker.unlock(key, HOLD_AT_LEAST);
        assertThat(first.locker.getHoldCount(key)).isEqualTo(1);
        assertThat(first.watchdog.watchedCount()).isEqualTo(1);

        first.locker.unlock(key, HOLD_AT_LEAST);
        assertThat(first.locker.getHoldCount(key)).isZero();
        assertThat(first.redis.opsForHash().hasKey(first.redisKey(key), "kept")).isTrue();
    }

    @Test
    void aWaiterIsNotHandedAKeptLockButTakesItOnceItEnds() throws Exception {
        long beforeTaken = System.nanoTime();
        first.locker.lock(key);
        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            try {
                return second.locker.tryLock(key, 5, 30, TimeUnit.SECONDS) ? System.nanoTime() : -1L;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(3)).until(() -> first.redis.opsForList().size(LockKeys.of(LockerFixture.PREFIX, key).waitQueue()) == 1);

        first.locker.unlock(key, HOLD_AT_LEAST);

        long acquiredAt = waited.get(5, TimeUnit.SECONDS);
        assertThat(acquiredAt).isNotEqualTo(-1L);
        assertThat(Duration.ofNanos(acquiredAt - beforeTaken)).isGreaterThanOrEqualTo(HOLD_AT_LEAST);
    }

    @Test
    void aLockTakenWithALeaseIsKeptNoLongerThanTheLease() throws Exception {
        assertThat(first.locker.tryLock(key, 0, 300, TimeUnit.MILLISECONDS)).isTrue();
        first.locker.unlock(key, Duration.ofSeconds(10));

        assertThat(first.redis.getExpire(first.redisKey(key), TimeUnit.MILLISECONDS)).isBetween(1L, 300L);
    }

    @Test
    void aNegativeOrMissingHoldAtLeastIsRefusedAndTheLockStaysHeld() {
        first.locker.lock(key);

        assertThatThrownBy(() -> first.locker.unlock(key, Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdAtLeast for lock '" + key + "'");
        assertThatThrownBy(() -> first.locker.unlock(key, null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(first.locker.isHeldByCurrentThread(key)).isTrue();
        first.locker.unlock(key);
    }

    @Test
    void aFairLockCannotBeKeptAndIsRefusedBeforeAnythingIsReleased() {
        first.locker.getFairLock(key).lock();

        assertThatThrownBy(() -> first.locker.unlock(key, HOLD_AT_LEAST)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Cannot keep fair lock '" + key + "'").hasMessageContaining("only a plain lock").hasMessageContaining("nothing was released");
        assertThat(first.locker.getFairLock(key).getHoldCount()).isEqualTo(1);
        first.locker.getFairLock(key).unlock();
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void aReadLockCannotBeKeptAndIsRefusedNamingItsKind() {
        refusedNamingItsKindAndStillHeld(first.locker.getReadWriteLock(key).readLock(), "the read lock of");
    }

    @Test
    void aWriteLockCannotBeKeptAndIsRefusedNamingItsKind() {
        refusedNamingItsKindAndStillHeld(first.locker.getReadWriteLock(key).writeLock(), "the write lock of");
    }

    private void refusedNamingItsKindAndStillHeld(RedisLock lock, String kind) {
        lock.lock();

        assertThatThrownBy(() -> first.locker.unlock(key, HOLD_AT_LEAST)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Cannot keep " + kind + " '" + key + "'").hasMessageContaining("nothing was released");
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(first.locker.heldLockCount()).isZero();
    }

    @Test
    void anAsyncReleaseKeepsTheLockFromItsOwnHandleToo() throws Exception {
        LockHandle handle = first.async.acquire(key, Duration.ZERO, null).get(5, TimeUnit.SECONDS);
        first.async.release(handle, HOLD_AT_LEAST).get(5, TimeUnit.SECONDS);

        assertThat(first.locker.isLocked(key)).isTrue();
        assertThat(first.async.acquire(handle, Duration.ZERO, null)).failsWithin(Duration.ofSeconds(5))
                .withThrowableThat().withCauseInstanceOf(LockAcquisitionException.class);
        assertThat(first.redis.opsForHash().keys(first.redisKey(key))).containsOnly("kept");
    }

    @Test
    void aReactiveReleaseKeepsTheLock() {
        LockHandle handle = first.reactive.acquire(key, Duration.ZERO, null).block(Duration.ofSeconds(5));
        first.reactive.release(handle, HOLD_AT_LEAST).block(Duration.ofSeconds(5));

        assertThat(first.locker.isLocked(key)).isTrue();
        assertThatThrownBy(() -> second.reactive.acquire(key, Duration.ZERO, null).block(Duration.ofSeconds(5)))
                .isInstanceOf(LockAcquisitionException.class);
    }
}
