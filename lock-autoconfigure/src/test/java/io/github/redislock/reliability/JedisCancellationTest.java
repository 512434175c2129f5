package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.LockHandle;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * Cancelled thread-free acquisitions on a Jedis connection factory, where every script call waits on a
 * redis-lock-blocking-call thread with a pooled connection and the waiter's pub/sub runs on a thread of its
 * own: a wait cancelled while queued takes its place out, so the holder's release hands the lock to nobody
 * and leaves no key; a cancelled withLock never runs its work.
 */
class JedisCancellationTest {

    private final RedisServerProcess redis = TestRedis.shared();
    private final LockerFixture holder = LockerFixture.connectJedis(redis.host(), redis.port(), Duration.ofSeconds(3));
    private final LockerFixture waiter = LockerFixture.connectJedis(redis.host(), redis.port(), Duration.ofSeconds(3));
    private final String key = "jedis-cancellation-" + UUID.randomUUID();

    @AfterEach
    void close() {
        waiter.close();
        holder.close();
    }

    @Test
    void aFutureCancelledWhileQueuedWithdrawsItsPlaceAndTheReleaseLeavesNoKey() {
        holder.locker.lock(key);
        CompletableFuture<LockHandle> acquisition = waiter.async.acquire(key, Duration.ofSeconds(20), null);
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);

        acquisition.cancel(false);

        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 0 && waiter.async.waitingCount() == 0);
        holder.locker.unlock(key);
        assertNothingLeft();
    }

    @Test
    void aMonoDisposedWhileQueuedWithdrawsItsPlaceAndNeverDeliversAHandle() {
        holder.locker.lock(key);
        List<LockHandle> delivered = new CopyOnWriteArrayList<>();
        Disposable acquisition = waiter.reactive.acquire(key, Duration.ofSeconds(20), null).subscribe(delivered::add);
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);

        acquisition.dispose();

        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 0 && waiter.async.waitingCount() == 0);
        holder.locker.unlock(key);
        assertNothingLeft();
        assertThat(delivered).as("handles delivered to the disposed subscriber").isEmpty();
    }

    @Test
    void aWithLockCancelledWhileQueuedNeverRunsItsWork() {
        holder.locker.lock(key);
        List<String> ran = new CopyOnWriteArrayList<>();
        CompletableFuture<String> result = waiter.async.withLock(key, Duration.ofSeconds(20), handle -> {
            ran.add("work");
            return CompletableFuture.completedFuture("done");
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);

        result.cancel(false);

        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 0 && waiter.async.waitingCount() == 0);
        holder.locker.unlock(key);
        assertNothingLeft();
        assertThat(ran).as("work run for a cancelled withLock").isEmpty();
    }

    private long queueLength() {
        return holder.redis.opsForList().size(LockerFixture.PREFIX + "{" + LockerFixture.PREFIX + key + "}:wait-queue");
    }

    /** Right after the holder's release: it handed the lock to no withdrawn wait, and no key of the lock stays. */
    private void assertNothingLeft() {
        assertThat(holder.locker.isLocked(key)).as("handed by the release to the cancelled wait").isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> holder.redis.keys(LockerFixture.PREFIX + "*" + key + "*").isEmpty());
        assertThat(waiter.locker.heldLockCount()).as("holds the waiter's instance keeps").isZero();
        assertThat(waiter.locker.watchdogState().watchedCount()).as("locks the waiter's watchdog renews").isZero();
    }
}
