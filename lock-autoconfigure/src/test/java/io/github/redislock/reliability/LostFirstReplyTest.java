package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A try without waiting whose reply is lost after its script ran: Redis gave the lock to an owner
 * whose {@code tryLock()} failed, and who will never unlock it. The try must give back what it may
 * have taken, for every lock kind; kept, the lock would stay taken for its lease with nobody behind it.
 */
class LostFirstReplyTest {

    /** The lease a lost hold would keep the lock for. */
    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(3);

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "lost-first-reply-" + UUID.randomUUID();
    private FaultProxy proxy;
    private LockerFixture trying;
    private LockerFixture other;
    /** Whether {@link #trying} is on Jedis ({@link #onJedis}). */
    private boolean jedis;

    @BeforeEach
    void connect() {
        proxy = new FaultProxy(redis.port());
        trying = LockerFixture.connect("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
        other = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
        trying.locker.isLocked(key); // its connection is open before traffic slows down
    }

    @AfterEach
    void close() {
        proxy.heal();
        trying.close();
        other.close();
        proxy.close();
    }

    @Test
    void aMultiLockTryWhoseReplyWasLostLeavesItsKeysFree() throws Exception {
        String second = key + "-second";
        warmUp(trying.locker.getMultiLock(key + "-warm-up", second + "-warm-up"));
        tryWithALostReply(trying.locker.getMultiLock(key, second));

        assertFreeWithinASecond(other.locker.getMultiLock(key, second));
    }

    @Test
    void aFairLockTryWhoseReplyWasLostLeavesItFree() throws Exception {
        warmUp(trying.locker.getFairLock(key + "-warm-up"));
        tryWithALostReply(trying.locker.getFairLock(key));

        assertFreeWithinASecond(other.locker.getFairLock(key));
    }

    @Test
    void aReadLockTryWhoseReplyWasLostLeavesItFree() throws Exception {
        warmUp(trying.locker.getReadWriteLock(key + "-warm-up").readLock());
        tryWithALostReply(trying.locker.getReadWriteLock(key).readLock());

        assertFreeWithinASecond(other.locker.getReadWriteLock(key).writeLock());
    }

    @Test
    void aWriteLockTryWhoseReplyWasLostLeavesItFree() throws Exception {
        warmUp(trying.locker.getReadWriteLock(key + "-warm-up").writeLock());
        tryWithALostReply(trying.locker.getReadWriteLock(key).writeLock());

        assertFreeWithinASecond(other.locker.getReadWriteLock(key).writeLock());
    }

    @Test
    void aFairLockTryOnJedisWhoseReplyWasLostLeavesItFree() throws Exception {
        onJedis();
        warmUp(trying.locker.getFairLock(key + "-warm-up"));
        tryWithALostReply(trying.locker.getFairLock(key));

        assertFreeWithinASecond(other.locker.getFairLock(key));
    }

    @Test
    void aMultiLockTryOnJedisWhoseReplyWasLostLeavesItsKeysFree() throws Exception {
        onJedis();
        String second = key + "-second";
        warmUp(trying.locker.getMultiLock(key + "-warm-up", second + "-warm-up"));
        tryWithALostReply(trying.locker.getMultiLock(key, second));

        assertFreeWithinASecond(other.locker.getMultiLock(key, second));
    }

    /**
     * The trying instance on Jedis with a 500 ms read timeout. Jedis breaks a pooled connection whose reply is
     * late (Lettuce keeps it), so the give-back goes over another one, and a request delayed with the reply would
     * die with the broken connection: only the replies are slowed ({@link FaultProxy#delayReplies}).
     */
    private void onJedis() {
        trying.close();
        trying = LockerFixture.connectJedis("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
        jedis = true;
        trying.locker.isLocked(key);
    }

    /** Loads the lock kind's scripts into Redis: a lost reply then comes from a script that ran, not from a script Redis lacked. */
    private static void warmUp(Lock lock) {
        lock.lock();
        lock.unlock();
    }

    /** The try runs in Redis; its reply comes after the 500 ms command timeout. */
    private void tryWithALostReply(Lock lock) {
        if (jedis) {
            proxy.delayReplies(700);
        } else {
            proxy.delay(700);
        }
        assertThat(catchThrowable(lock::tryLock)).isInstanceOf(LockRedisException.class);
        proxy.heal();
    }

    private static void assertFreeWithinASecond(Lock lock) throws InterruptedException {
        assertThat(lock.tryLock(1, TimeUnit.SECONDS))
                .as("free again, not held for the %s lease of a hold nobody knows of", WATCHDOG_TIMEOUT).isTrue();
        lock.unlock();
    }
}
