package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockObserver;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The async twin of {@code GiveBackAfterALostHoldTest}: a handle whose hold was lost acquires again,
 * and the acquisition is cancelled right as it is granted (after its wait settled, before its caller
 * got the handle). The acquisition replaced the lost hold, whose unlock is still owed; the lock it took
 * must go back in Redis, as nobody will release it. Paying the lost hold's owed unlock instead would
 * leave it taken and renewed by the watchdog until the handle's next release. The observer, told of the
 * grant at that very point, cancels the acquisition there.
 */
class AsyncGiveBackAfterALostHoldTest {

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "async-give-back-after-a-lost-hold-" + UUID.randomUUID();
    private final AtomicReference<CompletableFuture<LockHandle>> cancelOnGrant = new AtomicReference<>();
    private final CountDownLatch armed = new CountDownLatch(1);
    private LettuceConnectionFactory factory;
    private RedisLocker locker;
    private RedisAsyncLocker async;
    private LockerFixture other;

    @BeforeEach
    void connect() {
        factory = LockerFixture.startedLettuce(redis.host(), redis.port(), Duration.ofSeconds(60));
        locker = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(Duration.ofSeconds(3)).observer(new LockObserver() {
            @Override
            public Acquisition acquisitionStartedWithoutThread(ObservedLock lock) {
                return new Acquisition() {
                    @Override
                    public void acquired() {
                        if (cancelOnGrant.get() != null || awaitArmed()) {
                            cancelOnGrant.get().cancel(false);
                        }
                    }
                };
            }
        }).build();
        async = new RedisAsyncLocker(locker);
        other = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(3));
    }

    @AfterEach
    void close() {
        async.close();
        locker.close();
        factory.destroy();
        other.close();
    }

    @Test
    void anAcquisitionCancelledAsItIsGrantedAfterALostHoldGivesTheLockBackInRedis() throws Exception {
        LockHandle handle = acquireUncancelled();
        redis.command("DEL", LockerFixture.PREFIX + key); // lost: expired in a pause, deleted, a Redis restart
        Internals.renewNow(locker); // the watchdog finds it gone

        CompletableFuture<LockHandle> acquisition = async.acquire(handle, Duration.ZERO, null).toCompletableFuture();
        cancelOnGrant.set(acquisition);
        armed.countDown();

        await().atMost(Duration.ofSeconds(5)).until(acquisition::isCancelled);
        assertThat(other.locker.tryLock(key, 1, -1, TimeUnit.SECONDS)).as("given back, not kept for the handle's release of its lost hold").isTrue();
        assertThatThrownBy(() -> async.release(handle).get(5, TimeUnit.SECONDS)).as("the lost hold's release")
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LockLostException.class);
        assertThat(other.locker.isHeldByCurrentThread(key)).as("the other owner keeps the lock").isTrue();
        other.locker.unlock(key);
    }

    /** The first acquisition, which no cancel reaches: the observer lets it through. */
    private LockHandle acquireUncancelled() throws Exception {
        cancelOnGrant.set(CompletableFuture.completedFuture(null));
        LockHandle handle = async.acquire(key, Duration.ZERO, null).get(5, TimeUnit.SECONDS);
        cancelOnGrant.set(null);
        return handle;
    }

    private boolean awaitArmed() {
        try {
            return armed.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
