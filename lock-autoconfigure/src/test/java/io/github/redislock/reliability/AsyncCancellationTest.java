package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.LockHandle;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * A reactive acquisition cancelled while Redis has already granted it, but before the grant reached the
 * client, leaves nothing behind: the waiter's traffic goes through a {@link FaultProxy} that delays it,
 * so the cancellation lands inside a real in-flight window (seen from a direct connection: Redis already
 * shows the waiter as the owner) rather than in a window the test only hopes for.
 */
class AsyncCancellationTest {

    private static final long DELAY_MILLIS = 700;

    private final RedisServerProcess redis = TestRedis.shared();
    private FaultProxy proxy;
    private LockerFixture holder;
    private LockerFixture waiter;
    private String key;

    @BeforeEach
    void connect() {
        proxy = new FaultProxy(redis.port());
        holder = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(3));
        waiter = LockerFixture.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(3), Duration.ofSeconds(10));
        key = "async-cancel-" + UUID.randomUUID();
        waiter.locker.lock(key); // its connections and pub/sub link are open before traffic slows down
        waiter.locker.unlock(key);
    }

    @AfterEach
    void close() {
        proxy.heal();
        waiter.close();
        holder.close();
        proxy.close();
    }

    @Test
    void cancelledWhileTheAcquireScriptsReplyIsInFlightTheGrantIsReleased() {
        List<LockHandle> delivered = new CopyOnWriteArrayList<>();
        proxy.delay(DELAY_MILLIS);
        Disposable acquisition = waiter.reactive.acquire(key, Duration.ofSeconds(10), null).subscribe(delivered::add);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(this::heldByTheWaiter);

        acquisition.dispose(); // Redis granted it; the reply is still on its way

        assertNothingHeldRenewedOrLeft(delivered);
    }

    @Test
    void cancelledWhileAHandOffIsInFlightTheLockIsPassedOn() {
        List<LockHandle> delivered = new CopyOnWriteArrayList<>();
        holder.locker.lock(key);
        Disposable acquisition = waiter.reactive.acquire(key, Duration.ofSeconds(10), null).subscribe(delivered::add);
        await().atMost(Duration.ofSeconds(5)).until(() -> holder.redis.opsForList().size(queue()) == 1);
        proxy.delay(DELAY_MILLIS);

        holder.locker.unlock(key); // hands the lock to the queued waiter; its message is delayed
        assertThat(heldByTheWaiter()).as("the release made the queued waiter the owner").isTrue();
        acquisition.dispose();

        assertNothingHeldRenewedOrLeft(delivered);
        assertThat(holder.locker.tryLock(key)).as("the lock is free for the next caller").isTrue();
        holder.locker.unlock(key);
    }

    private boolean heldByTheWaiter() {
        return holder.redis.<String, String>opsForHash().keys(LockerFixture.PREFIX + key).stream()
                .anyMatch(field -> field.startsWith(waiter.locker.getClientId() + ":~"));
    }

    private String queue() {
        return LockerFixture.PREFIX + "{" + LockerFixture.PREFIX + key + "}:wait-queue";
    }

    private void assertNothingHeldRenewedOrLeft(List<LockHandle> delivered) {
        // The give-back is a round trip through the delay itself: wait for its reply, not only for Redis to show the lock free.
        await().atMost(Duration.ofSeconds(10)).until(() -> !holder.locker.isLocked(key) && waiter.async.waitingCount() == 0
                && waiter.locker.heldLockCount() == 0);
        proxy.heal();
        assertThat(delivered).as("handles delivered to the cancelled subscriber").isEmpty();
        assertThat(waiter.locker.heldLocks()).as("holds the waiter's instance keeps").isEmpty();
        assertThat(waiter.locker.watchdogState().watchedCount()).as("locks the waiter's watchdog renews").isZero();
        assertThat(holder.redis.keys(LockerFixture.PREFIX + "*" + key + "*")).as("keys of the lock").isEmpty();
        assertThat(waiter.lostEvents).isEmpty();
    }
}
