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
 * client, leaves nothing behind. The waiter's traffic goes through a {@link FaultProxy} that holds the
 * acquire script's reply (or the hand-off's message) back until the test has cancelled, so the cancellation
 * lands inside a real in-flight window (seen from a direct connection: Redis already shows the waiter as the
 * owner) whatever the machine's load: the grant cannot beat the cancellation, as it could when the window
 * was a fixed delay.
 */
class AsyncCancellationTest {

    /**
     * The acquisitions' wait, and how long the test waits for Redis to grant them: ample, so that on a loaded machine the
     * cancelled acquisition's attempt still reaches Redis in time, and its wait does not end while its reply is held.
     */
    private static final Duration WAIT = Duration.ofSeconds(30);
    /**
     * The waiter's watchdog timeout, the lease of a grant whose reply is held: longer than the test looks at it, so the
     * in-flight grant cannot expire first (then the lock would only seem given back; with 3 s it did on a loaded machine).
     */
    static final Duration WAITER_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);

    private final RedisServerProcess redis = TestRedis.shared();
    private FaultProxy proxy;
    private LockerFixture holder;
    private LockerFixture waiter;
    private String key;

    /** The waiting instance, whose every connection goes through the proxy at {@code port}. */
    LockerFixture connectWaiter(int port) {
        return LockerFixture.connect("127.0.0.1", port, WAITER_WATCHDOG_TIMEOUT, Duration.ofSeconds(10));
    }

    @BeforeEach
    void connect() {
        proxy = new FaultProxy(redis.port());
        holder = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(3));
        waiter = connectWaiter(proxy.port());
        key = "async-cancel-" + UUID.randomUUID();
        waiter.locker.lock(key); // its connections and pub/sub link are open before replies are held
        waiter.locker.unlock(key);
        waiter.async.release(waiter.async.acquire(key, WAIT, null).join()).join(); // and the thread-free path's classes loaded
        assertThat(heldByTheWaiter()).as("held by the waiter before the test").isFalse(); // the direct connection is open too
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
        proxy.holdRepliesAfterScriptCalls();
        Disposable acquisition = waiter.reactive.acquire(key, WAIT, null).subscribe(delivered::add);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(10)).until(this::heldByTheWaiter);

        acquisition.dispose(); // Redis granted it; the reply is held back
        proxy.releaseReplies();

        assertNothingHeldRenewedOrLeft(delivered);
    }

    @Test
    void cancelledWhileAHandOffIsInFlightTheLockIsPassedOn() {
        List<LockHandle> delivered = new CopyOnWriteArrayList<>();
        holder.locker.lock(key);
        Disposable acquisition = waiter.reactive.acquire(key, WAIT, null).subscribe(delivered::add);
        await().atMost(Duration.ofSeconds(5)).until(() -> holder.redis.opsForList().size(queue()) == 1);
        proxy.holdReplies();

        holder.locker.unlock(key); // hands the lock to the queued waiter; its message is held back
        assertThat(heldByTheWaiter()).as("the release made the queued waiter the owner").isTrue();
        acquisition.dispose();
        proxy.releaseReplies();

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
        // The give-back is a round trip through the proxy: wait for its reply, not only for Redis to show the lock free.
        await().atMost(Duration.ofSeconds(10)).until(() -> !holder.locker.isLocked(key) && waiter.async.waitingCount() == 0
                && waiter.locker.heldLockCount() == 0);
        assertThat(delivered).as("handles delivered to the cancelled subscriber").isEmpty();
        assertThat(waiter.locker.heldLocks()).as("holds the waiter's instance keeps").isEmpty();
        assertThat(waiter.locker.watchdogState().watchedCount()).as("locks the waiter's watchdog renews").isZero();
        assertThat(holder.redis.keys(LockerFixture.PREFIX + "*" + key + "*")).as("keys of the lock").isEmpty();
        assertThat(waiter.lostEvents).isEmpty();
    }
}
