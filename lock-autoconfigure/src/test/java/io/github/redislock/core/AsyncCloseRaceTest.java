package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * An async acquisition that races its locker's close: the close comes after the acquisition checked
 * that the locker is open, before its wait has begun. The acquisition must fail, and leave no turn of
 * its handle behind: a turn never ended keeps every later acquisition of that handle waiting for ever.
 * The observer, told of the acquisition at that very point, closes the locker there.
 */
class AsyncCloseRaceTest {

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "async-close-race-" + UUID.randomUUID();
    private final AtomicReference<Runnable> onAcquisition = new AtomicReference<>(() -> { });
    private LettuceConnectionFactory factory;
    private RedisLocker locker;
    private RedisAsyncLocker async;

    @BeforeEach
    void connect() {
        factory = LockerFixture.startedLettuce(redis.host(), redis.port(), Duration.ofSeconds(60));
        locker = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(Duration.ofSeconds(3)).observer(new LockObserver() {
            @Override
            public Acquisition acquisitionStartedWithoutThread(ObservedLock lock) {
                onAcquisition.get().run();
                return LockObserver.super.acquisitionStartedWithoutThread(lock);
            }
        }).build();
        async = new RedisAsyncLocker(locker);
    }

    @AfterEach
    void close() {
        async.close();
        locker.close();
        factory.destroy();
    }

    @Test
    void aHandlesAcquisitionRacingTheCloseFailsAndLeavesNoTurnBehind() throws Exception {
        LockHandle handle = async.acquire(key, Duration.ZERO, null).get(5, TimeUnit.SECONDS);
        async.release(handle).get(5, TimeUnit.SECONDS);
        onAcquisition.set(async::close);

        assertThat(async.acquire(handle, Duration.ZERO, null).toCompletableFuture()).failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(ExecutionException.class).havingCause().isInstanceOf(IllegalStateException.class);
        assertThat(Internals.ownerTurnsInLine(locker)).as("owner turns left in line").isZero();
    }
}
