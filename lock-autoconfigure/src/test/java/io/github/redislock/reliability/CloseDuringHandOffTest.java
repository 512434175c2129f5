package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A locker closes while a lock is being handed to one of its waiting threads (or while its first try,
 * which found the lock free, is on its way): the release has handed
 * it over in Redis, and the message saying so is still on its way. The closing locker withdraws the
 * wait, which passes the lock on; the waiting thread, told of the hand-off a moment later, must not
 * take it as well. Were {@code lock()} to return, its caller would believe it holds a lock that is free
 * in Redis (another instance takes it at once): two owners.
 *
 * <p>The closing instance's traffic goes through a {@link FaultProxy} delaying it {@value #DELAY_MILLIS} ms
 * each way, so the hand-off message reaches it after its close has begun.
 */
class CloseDuringHandOffTest {

    private static final long DELAY_MILLIS = 300;

    private final RedisServerProcess redis = TestRedis.shared();
    private FaultProxy proxy;
    private LockerFixture closing;
    private LockerFixture holder;
    private final String key = "close-during-hand-off-" + UUID.randomUUID();

    @BeforeEach
    void connect() {
        proxy = new FaultProxy(redis.port());
        // Slow retries: the waiting thread wakes for the hand-off message, not for a look of its own.
        closing = connectClosing(proxy.port());
        holder = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(3));
    }

    /** The closing instance, whose every connection goes through the proxy at {@code port}. */
    LockerFixture connectClosing(int port) {
        return LockerFixture.connect("127.0.0.1", port, LockerFixture.SLOW_RETRIES, Duration.ofSeconds(10));
    }

    @AfterEach
    void close() {
        proxy.heal();
        closing.close();
        holder.close();
        proxy.close();
    }

    @Test
    void aWaiterWhoseLockerClosedAsTheLockWasHandedToItDoesNotTakeIt() throws Exception {
        holder.locker.lock(key);
        CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> closing.locker.lock(key));
        String queue = Internals.plainLockKeys(LockerFixture.PREFIX, key).get(1);
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> holder.redis.opsForList().size(queue) == 1 && Internals.parkedWaiters(closing.locker, key) == 1);

        proxy.delay(DELAY_MILLIS);
        holder.locker.unlock(key); // hands the lock to the queued waiter in Redis; the message is delayed
        CompletableFuture<Void> shutdown = CompletableFuture.runAsync(closing.locker::close);

        Throwable outcome = catchThrowable(() -> waiter.get(10, TimeUnit.SECONDS));
        shutdown.get(10, TimeUnit.SECONDS);
        assertThat(outcome).as("lock() of a closing locker whose wait was withdrawn").isNotNull()
                .hasRootCauseInstanceOf(IllegalStateException.class);
        assertThat(holder.locker.tryLock(key, 1, 3, TimeUnit.SECONDS)).as("the withdrawn wait passed the lock on").isTrue();
        holder.locker.unlock(key);
    }

    /** The same race on a first try that finds the lock free: the closing locker's withdrawal releases what it took. */
    @Test
    void aFirstTryWhoseLockerClosesBeforeItsReplyArrivesDoesNotTakeTheLock() throws Exception {
        closing.locker.isLocked(key); // its connection is open before traffic slows down
        proxy.delay(DELAY_MILLIS);
        CompletableFuture<Void> taker = CompletableFuture.runAsync(() -> closing.locker.lock(key));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> Internals.waitsInProgress(closing.locker) == 1); // its try is on its way

        closing.locker.close(); // withdraws the wait: after the try, on the same connection

        Throwable outcome = catchThrowable(() -> taker.get(10, TimeUnit.SECONDS));
        assertThat(outcome).as("lock() of a closing locker whose wait was withdrawn").isNotNull()
                .hasRootCauseInstanceOf(IllegalStateException.class);
        assertThat(holder.locker.tryLock(key, 1, 3, TimeUnit.SECONDS)).as("the lock is free for another instance").isTrue();
        holder.locker.unlock(key);
    }

    /**
     * The locker closes while an async acquisition's reply is on its way (it found the lock free): the
     * close must wait for that wait, which gives the lock back, before it stops; stopped first, the
     * give-back finds a closed locker and the lock stays taken for its lease.
     */
    @Test
    void anAcquisitionWhoseReplyIsOnItsWayWhenItsLockerClosesGivesTheLockBack() throws Exception {
        closing.locker.isLocked(key); // its connection is open before traffic slows down
        proxy.delay(DELAY_MILLIS);
        CompletableFuture<LockHandle> acquiring = closing.async.acquire(key, Duration.ZERO, null).toCompletableFuture();
        Thread.sleep(DELAY_MILLIS / 3); // its try is on its way

        closing.locker.close();

        assertThat(catchThrowable(() -> acquiring.get(10, TimeUnit.SECONDS))).as("the acquisition of a closed locker").isNotNull()
                .hasRootCauseInstanceOf(IllegalStateException.class);
        assertThat(holder.locker.tryLock(key, 1, 3, TimeUnit.SECONDS)).as("given back, not held for its lease").isTrue();
        holder.locker.unlock(key);
    }
}
