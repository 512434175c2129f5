package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A watched hold's final unlock whose reply is lost after {@code release.lua} ran and handed the lock to a queued waiter:
 * the unlock throws {@link LockRedisException}, the instance forgets the hold (its watchdog renews nothing Redis freed, a
 * second unlock is refused as for a lock not held), and the waiter is handed the lock exactly once, at once, not after the
 * holder's lease. On Jedis, which breaks the connection whose reply was late, the lost reply is the short release's (it
 * changed nothing: the waiter had marked the lock), and the full release that follows goes over a new connection, in time;
 * the waiter gets the lock once there too. On a caller connection the late replies keep it with its thread and both releases
 * time out, as on Lettuce's. (A release request that never reaches Redis cannot hand anything on: the lock
 * then lasts its lease, renewed by nobody.)
 */
class LostFinalUnlockReplyTest {

    /** Longer than the waiter's wait for the hand-off: a lock only the lease's end freed would fail the test. */
    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(30);

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "lost-final-unlock-" + UUID.randomUUID();
    private final FaultProxy proxy = new FaultProxy(redis.port());
    private final LockerFixture waiting = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
    private final CountDownLatch checked = new CountDownLatch(1);
    private final AtomicReference<String> waiterOwner = new AtomicReference<>();
    private LockerFixture holder;
    private boolean jedis;

    @AfterEach
    void close() {
        checked.countDown();
        proxy.heal();
        try {
            holder.close();
            waiting.close();
        } finally {
            proxy.close();
        }
    }

    @Test
    void aFinalUnlockWhoseReplyWasLostForgetsTheHoldAndTheWaiterGetsTheLockOnce() throws Exception {
        holder = LockerFixture.connectSharedOnly("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
        assertTheLostUnlockHandsTheLockOnOnce();
    }

    @Test
    void aFinalUnlockOnACallerConnectionWhoseReplyWasLostForgetsTheHoldAndTheWaiterGetsTheLockOnce() throws Exception {
        holder = LockerFixture.connect("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
        assertTheLostUnlockHandsTheLockOnOnce();
    }

    @Test
    void aShortReleaseOnJedisWhoseReplyWasLostIsFollowedByTheFullReleaseAndTheWaiterGetsTheLockOnce() throws Exception {
        holder = LockerFixture.connectJedis("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
        jedis = true;
        assertTheLostUnlockHandsTheLockOnOnce();
    }

    private void assertTheLostUnlockHandsTheLockOnOnce() throws Exception {
        holder.locker.lock(key + "-warm-up"); // release.lua in Redis: the late reply below is the script's, not a NOSCRIPT's
        holder.locker.unlock(key + "-warm-up");
        holder.locker.lock(key);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            waiterOwner.set(waiting.locker.currentOwner());
            try {
                boolean taken = waiting.locker.tryLock(key, 10, -1, TimeUnit.SECONDS);
                if (taken) {
                    checked.await(20, TimeUnit.SECONDS);
                    waiting.locker.unlock(key);
                }
                return taken;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> Long.valueOf(1).equals(redis.command("LLEN", PrivateRedisInstances.queue(key)))
                && Internals.parkedWaiters(waiting.locker, key) == 1);

        // The hold was taken uncontended: its short release, finding the waiter's mark, changes nothing, and the full release
        // follows. Each runs at once; the replies on the connections open now come after the 500 ms timeout.
        holder.locker.lock(key + "-touch"); // a caller connection just used, so the unlock goes on it without a PING first
        holder.locker.unlock(key + "-touch");
        proxy.delayReplies(700);
        Throwable unlocked = catchThrowable(() -> holder.locker.unlock(key));
        if (jedis) { // Jedis broke the late connection: the full release went over a new one, in time
            assertThat(unlocked).as("the unlock, its full release answered").isNull();
        } else {
            assertThat(unlocked).isInstanceOf(LockRedisException.class).hasMessageContaining(holder.redisKey(key));
        }
        proxy.heal();

        await().atMost(Duration.ofSeconds(5)).until(() -> waiting.locker.heldLockCount() == 1);
        assertThat(redis.command("HGETALL", holder.redisKey(key))).asList().as("the lock's fields: the waiter's, counted once")
                .containsExactly(waiterOwner.get(), "1");
        assertThat(holder.locker.heldLockCount()).as("holds the holder's instance keeps").isZero();
        assertThat(holder.locker.watchdogState().watchedCount()).as("locks the holder's watchdog renews").isZero();
        assertThat(holder.locker.isHeldByCurrentThread(key)).isFalse();
        assertThat(catchThrowable(() -> holder.locker.unlock(key))).as("a second unlock").isInstanceOf(IllegalMonitorStateException.class);
        checked.countDown();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(redis.command("KEYS", "*" + key + "*")).asList().isEmpty();
        assertThat(holder.lostEvents).isEmpty();
        assertThat(waiting.lostEvents).isEmpty();
    }
}
