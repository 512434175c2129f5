package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.LockRedisException;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisAsyncLocker;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The AsyncLocker where its acquisitions meet a closing locker, a failing observer, a stranger's
 * handle and a reply that never comes: each acquisition ends, and no lock stays held with nobody behind it.
 */
class AsyncLockerEdgesTest {

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "async-edges-" + UUID.randomUUID();
    private LockerFixture other;

    @BeforeEach
    void connect() {
        other = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(3));
    }

    @AfterEach
    void close() {
        other.close();
    }

    @Test
    void anAcquisitionThatRacesTheLockersCloseFailsInsteadOfNeverCompleting() throws Exception {
        AtomicReference<RedisAsyncLocker> async = new AtomicReference<>();
        LockObserver closesAsItStarts = new LockObserver() { // stages the race: the locker closes inside acquire()
            @Override
            public Acquisition acquisitionStartedWithoutThread(ObservedLock lock) {
                async.get().close();
                return Acquisition.NONE;
            }
        };
        try (Instance instance = new Instance(closesAsItStarts)) {
            async.set(instance.async);
            CompletableFuture<LockHandle> acquisition = instance.async.acquire(key, Duration.ofSeconds(5), null);

            Throwable outcome = catchThrowable(() -> acquisition.get(10, TimeUnit.SECONDS));
            assertThat(outcome).hasRootCauseInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        }
        assertThat(other.locker.tryLock(key)).isTrue();
        other.locker.unlock(key);
    }

    @Test
    void anObserverThatFailsOnTheAcquisitionLeavesItCompletedAndItsLockReleasable() throws Exception {
        LockObserver failsOnAcquired = new LockObserver() {
            @Override
            public Acquisition acquisitionStarted(ObservedLock lock) {
                return new Acquisition() {
                    @Override
                    public void acquired() {
                        throw new IllegalStateException("observer bug");
                    }
                };
            }
        };
        try (Instance instance = new Instance(failsOnAcquired)) {
            LockHandle handle = instance.async.acquire(key, Duration.ofSeconds(5), null).get(10, TimeUnit.SECONDS);
            instance.async.release(handle).get(10, TimeUnit.SECONDS);
        }
        assertThat(other.locker.tryLock(key)).isTrue();
        other.locker.unlock(key);
    }

    @Test
    void aHandleIssuedByAnotherLockerIsRefusedNamingIt() throws Exception {
        try (Instance first = new Instance(LockObserver.NONE); Instance second = new Instance(LockObserver.NONE)) {
            LockHandle foreign = first.async.acquire(key, Duration.ofSeconds(5), null).get(10, TimeUnit.SECONDS);

            assertThatThrownBy(() -> second.async.acquire(foreign, Duration.ZERO, null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(key).hasMessageContaining("another locker");
            assertThatThrownBy(() -> second.async.release(foreign)).isInstanceOf(IllegalArgumentException.class);
            first.async.release(foreign).get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aZeroWaitTryWhoseReplyTimedOutAfterTheScriptRanGivesTheLockBack() throws Exception {
        FaultProxy proxy = new FaultProxy(redis.port());
        // A 30 s watchdog: undone or not, the lock would otherwise stay taken for 30 s.
        try (LockerFixture slow = LockerFixture.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(30), Duration.ofMillis(500))) {
            LockHandle warmUp = slow.async.acquire(key, Duration.ZERO, null).get(10, TimeUnit.SECONDS); // its connections are open
            slow.async.release(warmUp).get(10, TimeUnit.SECONDS); // before traffic slows down
            proxy.delay(700);

            Throwable outcome = catchThrowable(() -> slow.async.acquire(key, Duration.ZERO, null).get(10, TimeUnit.SECONDS));
            assertThat(outcome).cause().isInstanceOf(LockRedisException.class).hasMessageContaining("timed out");
            proxy.heal();

            assertThat(other.locker.tryLock(key, 5, 3, TimeUnit.SECONDS)).as("the lock the lost reply took is given back").isTrue();
            other.locker.unlock(key);
        } finally {
            proxy.close();
        }
    }

    /** One instance's Locker and AsyncLocker with an observer of the test's. */
    private final class Instance implements AutoCloseable {
        final LettuceConnectionFactory factory;
        final RedisLocker locker;
        final RedisAsyncLocker async;

        Instance(LockObserver observer) {
            factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
            factory.afterPropertiesSet();
            factory.start();
            locker = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(Duration.ofSeconds(3)).observer(observer).build();
            async = new RedisAsyncLocker(locker);
        }

        @Override
        public void close() {
            async.close();
            locker.close();
            factory.destroy();
        }
    }
}
