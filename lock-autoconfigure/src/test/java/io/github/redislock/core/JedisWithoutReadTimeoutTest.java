package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

import io.github.redislock.LockRedisException;
import io.github.redislock.testsupport.RedisServerProcess;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A client that never gives up on a reply (Jedis with read timeout 0, as Spring Boot's {@code spring.data.redis.timeout=0}
 * configures it, or Lettuce with command timeout 0) still gets a bound on every blocking call: the reply backstop, which is
 * then the watchdog timeout (1 s here), not a caller parked for as long as Redis stays silent. A client with a timeout of its
 * own gets that timeout and a second (Lettuce without command timeouts, for comparison). The call then fails as a lost reply:
 * a {@link LockRedisException} naming the key; the instance forgets the hold (its watchdog stops renewing it) and the lock,
 * if Redis still has it, ends with its lease.
 */
class JedisWithoutReadTimeoutTest {

    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(1);
    /** Far below the old backstop's 61 s, well above one or two watchdog timeouts on a loaded machine. */
    private static final Duration FAILS_WITHIN = Duration.ofSeconds(20);

    private static RedisServerProcess redis;
    private final ExecutorService caller = Executors.newSingleThreadExecutor();
    private LockerFixture instance;

    /** Each blocking kind of lock, one key (a multi-lock: two) per test. */
    enum Kind {
        PLAIN(key -> locker -> locker.getLock(key)),
        FAIR(key -> locker -> locker.getFairLock(key)),
        READ(key -> locker -> locker.getReadWriteLock(key).readLock()),
        WRITE(key -> locker -> locker.getReadWriteLock(key).writeLock()),
        MULTI(key -> locker -> locker.getMultiLock(key, key + "-second"));

        private final Function<String, Function<RedisLocker, Lock>> lock;

        Kind(Function<String, Function<RedisLocker, Lock>> lock) {
            this.lock = lock;
        }

        Lock on(RedisLocker locker, String key) {
            return lock.apply(key).apply(locker);
        }
    }

    @BeforeAll
    static void startRedis() {
        redis = RedisServerProcess.start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @AfterEach
    void resumeAndClose() {
        redis.resume();
        caller.shutdownNow();
        if (instance != null) {
            instance.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aBlockingUnlockRedisNeverAnswersOnJedisWithoutReadTimeoutFailsAtTheWatchdogTimeout(Kind kind) throws Exception {
        instance = LockerFixture.connectJedis(redis.host(), redis.port(), WATCHDOG_TIMEOUT, Duration.ZERO);
        Lock lock = kind.on(instance.locker, "unanswered-unlock-" + kind);
        caller.submit(lock::lock).get(); // the unlock's thread holds it
        redis.pause();

        assertFailsAtTheBackstop(caller.submit(lock::unlock), kind + "'s unlock", "unanswered-unlock-" + kind, WATCHDOG_TIMEOUT);
    }

    /** A look at a lock (isLocked, getHoldCount, the locks endpoint's) runs outside the scripts' path, and is bounded the same. */
    @Test
    void aLookAtALockRedisNeverAnswersOnJedisWithoutReadTimeoutFailsAtTheWatchdogTimeout() throws Exception {
        instance = LockerFixture.connectJedis(redis.host(), redis.port(), WATCHDOG_TIMEOUT, Duration.ZERO);
        instance.locker.isLocked("unanswered-look"); // the pool has a connection before Redis falls silent
        redis.pause();

        assertFailsAtTheBackstop(caller.submit(() -> instance.locker.isLocked("unanswered-look")), "isLocked", "unanswered-look", WATCHDOG_TIMEOUT);
    }

    /** Settled as a lost final unlock reply: nothing held or renewed here, a second unlock refused; Redis frees it by itself. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void aBlockingUnlockThatEndedAtTheBackstopLeavesNoHoldAndNoRenewal(Kind kind) throws Exception {
        instance = LockerFixture.connectJedis(redis.host(), redis.port(), WATCHDOG_TIMEOUT, Duration.ZERO);
        String key = "settled-unlock-" + kind;
        Lock lock = kind.on(instance.locker, key);
        caller.submit(lock::lock).get();
        redis.pause();
        assertThat(caller.submit(lock::unlock)).failsWithin(FAILS_WITHIN);

        assertThat(instance.locker.heldLockCount()).as("holds the instance still keeps").isZero();
        assertThat(instance.locker.watchdogState().watchedCount()).as("locks the watchdog still renews").isZero();
        assertThat(caller.submit(lock::unlock)).as("a second unlock").failsWithin(FAILS_WITHIN)
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(IllegalMonitorStateException.class);
        redis.resume();
        await().atMost(FAILS_WITHIN).until(() -> !Boolean.TRUE.equals(instance.redis.hasKey(instance.redisKey(key))));
    }

    /** {@code lock()} and {@code tryLock()}: the try fails at the backstop, then its give-back of what it may have taken does. */
    @ParameterizedTest
    @CsvSource({"PLAIN,true", "PLAIN,false", "FAIR,true", "FAIR,false", "READ,true", "READ,false", "WRITE,true", "WRITE,false", "MULTI,true", "MULTI,false"})
    void aBlockingAcquisitionRedisNeverAnswersOnJedisWithoutReadTimeoutFailsAndHoldsNothing(Kind kind, boolean waits) {
        instance = LockerFixture.connectJedis(redis.host(), redis.port(), WATCHDOG_TIMEOUT, Duration.ZERO);
        String key = "unanswered-" + (waits ? "lock-" : "try-") + kind;
        Lock lock = kind.on(instance.locker, key);
        redis.pause();

        assertFailsAtTheBackstop(waits ? caller.submit(lock::lock) : caller.submit((Callable<Boolean>) lock::tryLock),
                kind + (waits ? "'s lock()" : "'s tryLock()"), key, WATCHDOG_TIMEOUT);
        assertThat(instance.locker.heldLockCount()).isZero();
    }

    /** Lettuce with command timeout 0 times nothing out either: the same rule, the watchdog timeout. */
    @Test
    void aBlockingUnlockRedisNeverAnswersOnLettuceWithCommandTimeoutZeroFailsAtTheWatchdogTimeout() throws Exception {
        assertUnlockFailsAt(LettuceClientConfiguration.builder().commandTimeout(Duration.ZERO).build(), WATCHDOG_TIMEOUT);
    }

    /** For comparison: Lettuce told not to time commands out still has its command timeout, so the backstop is that and a second. */
    @Test
    void aBlockingUnlockRedisNeverAnswersOnLettuceWithoutCommandTimeoutsFailsAtItsCommandTimeoutAndASecond() throws Exception {
        assertUnlockFailsAt(LettuceClientConfiguration.builder().commandTimeout(Duration.ofMillis(500))
                .clientOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build()).build())
                .build(), Duration.ofMillis(1500));
    }

    /** Fails as a lost reply does, naming the key and the backstop, well before a minute (the old backstop) has passed. */
    private static void assertFailsAtTheBackstop(Future<?> call, String what, String key, Duration backstop) {
        assertThat(call).as("%s Redis never answers", what).failsWithin(FAILS_WITHIN)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockRedisException.class)
                .withMessageContaining("No reply from Redis within " + backstop)
                .withMessageContaining(key);
    }

    private void assertUnlockFailsAt(LettuceClientConfiguration client, Duration backstop) throws Exception {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()), client);
        factory.afterPropertiesSet();
        factory.start();
        try (RedisLocker locker = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).watchdogTimeout(WATCHDOG_TIMEOUT).build()) {
            caller.submit(() -> locker.lock("unanswered-lettuce")).get();
            redis.pause();
            assertFailsAtTheBackstop(caller.submit(() -> locker.unlock("unanswered-lettuce")), "an unlock on Lettuce", "unanswered-lettuce", backstop);
            assertThat(List.of(locker.heldLockCount(), locker.watchdogState().watchedCount())).as("holds kept, locks renewed").containsOnly(0);
        } finally {
            redis.resume();
            LockerFixture.destroyWithin(factory, Duration.ofSeconds(20));
        }
    }
}
