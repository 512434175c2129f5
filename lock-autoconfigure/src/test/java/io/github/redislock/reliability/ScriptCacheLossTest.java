package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.core.Internals;
import io.github.redislock.core.script.LockScript;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Redis lost its script cache (a restart, a failover to a replica that never ran the scripts, {@code SCRIPT FLUSH}) while
 * holds exist: each script's next call gets {@code NOSCRIPT} and goes out again as {@code EVAL}, on both clients, and
 * nothing is lost on the way (each script is cached again afterwards: it ran as EVAL): acquire, release, renew, renew-leases, token, claim, fair, read-write and force-release.
 * A private server: the flushes would turn other classes' warmed-up script calls into NOSCRIPT round trips.
 */
class ScriptCacheLossTest {

    @RegisterExtension
    static final PrivateRedisInstances instances = new PrivateRedisInstances();
    private static final RedisServerProcess redis = instances.redis;

    private final String key = "script-cache-loss-" + UUID.randomUUID();

    @ParameterizedTest(name = "jedis={0}")
    @ValueSource(booleans = {false, true})
    void aPlainHoldIsRenewedAskedForItsTokenAndReleasedAfterTheCacheWasLost(boolean jedis) {
        instances.connect(jedis, key);
        flushed(() -> instances.instance.locker.lock(key), LockScript.ACQUIRE);
        flushed(() -> Internals.renewNow(instances.instance.locker), LockScript.RENEW);
        flushed(() -> assertThat(instances.instance.locker.fencingToken(key)).isPositive(), LockScript.TOKEN);
        assertThat(instances.instance.locker.isHeldByCurrentThread(key)).as("held after the renewal and the ask").isTrue();
        flushed(() -> instances.instance.locker.unlock(key), LockScript.RELEASE);

        assertNothingLeft();
    }

    @ParameterizedTest(name = "jedis={0}")
    @ValueSource(booleans = {false, true})
    void aFairHoldIsTakenRenewedAndReleasedAfterTheCacheWasLost(boolean jedis) {
        instances.connect(jedis, key);
        RedisLock fair = instances.instance.locker.getFairLock(key);
        flushed(fair::lock, LockScript.FAIR);
        flushed(() -> Internals.renewNow(instances.instance.locker), LockScript.RENEW);
        flushed(fair::unlock, LockScript.FAIR);

        assertNothingLeft();
    }

    @ParameterizedTest(name = "jedis={0}")
    @ValueSource(booleans = {false, true})
    void readAndWriteHoldsAreTakenRenewedAndReleasedAfterTheCacheWasLost(boolean jedis) {
        instances.connect(jedis, key);
        RedisReadWriteLock readWrite = instances.instance.locker.getReadWriteLock(key);
        flushed(() -> readWrite.readLock().lock(), LockScript.READ_WRITE);
        flushed(() -> Internals.renewNow(instances.instance.locker), LockScript.RENEW_LEASES);
        flushed(() -> readWrite.readLock().unlock(), LockScript.READ_WRITE);
        flushed(() -> readWrite.writeLock().lock(), LockScript.READ_WRITE);
        flushed(() -> readWrite.writeLock().unlock(), LockScript.READ_WRITE);

        assertNothingLeft();
    }

    @ParameterizedTest(name = "jedis={0}")
    @ValueSource(booleans = {false, true})
    void aHandOffWithALeaseLongerThanTheWatchdogsIsClaimedAfterTheCacheWasLost(boolean jedis) throws Exception {
        instances.connect(jedis, key);
        instances.other.locker.lock(key);
        CompletableFuture<Boolean> waiter = Waiters.waitTakeAndRelease(instances.instance.locker, key, 10); // its lease outlasts the watchdog's: claim.lua confirms the hand-off
        await().atMost(Duration.ofSeconds(5)).until(() -> Long.valueOf(1).equals(redis.command("LLEN", PrivateRedisInstances.queue(key)))
                && Internals.parkedWaiters(instances.instance.locker, key) == 1); // queued and listening: it takes the hand-off, not a try of its own

        redis.command("SCRIPT", "FLUSH");
        instances.other.locker.unlock(key);
        assertThat(waiter.get(10, TimeUnit.SECONDS)).as("the waiter claimed the lock handed to it").isTrue();
        assertRanAsEval(LockScript.RELEASE, LockScript.CLAIM);

        assertNothingLeft();
    }

    @ParameterizedTest(name = "jedis={0}")
    @ValueSource(booleans = {false, true})
    void aForceReleaseFreesALockAfterTheCacheWasLost(boolean jedis) {
        instances.connect(jedis, key);
        instances.other.locker.lock(key);

        flushed(() -> assertThat(instances.instance.locker.admin().forceRelease(key)).hasSize(1), LockScript.FORCE_RELEASE);

        assertThat(instances.instance.locker.tryLock(key)).as("free after the force-release").isTrue();
        instances.instance.locker.unlock(key);
        assertThat(catchThrowable(() -> instances.other.locker.unlock(key))).as("the former holder's unlock").isInstanceOf(LockLostException.class);
    }

    /** Empties the script cache, runs {@code operation}, and checks that {@code scripts} ran (after their NOSCRIPT) as EVAL, which cached them again. */
    private static void flushed(ThrowingRunnable operation, LockScript... scripts) {
        redis.command("SCRIPT", "FLUSH");
        try {
            operation.run();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        assertRanAsEval(scripts);
    }

    private static void assertRanAsEval(LockScript... scripts) {
        for (LockScript script : scripts) {
            assertThat(redis.command("SCRIPT", "EXISTS", script.sha1Hex())).asList().as("%s cached again by its EVAL after the flush", script)
                    .containsExactly(1L);
        }
    }

    private void assertNothingLeft() {
        assertThat(instances.instance.locker.heldLockCount()).isZero();
        assertThat(instances.instance.locker.watchdogState().watchedCount()).isZero();
        assertThat(instances.instance.lostEvents).isEmpty();
        assertThat(redis.command("KEYS", "*" + key + "*")).asList().isEmpty();
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
