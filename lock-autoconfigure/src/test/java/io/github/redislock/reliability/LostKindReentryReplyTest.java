package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

import io.github.redislock.LockRedisException;
import io.github.redislock.Locker;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LostReentryReplyTest} on the fair, read and write locks: a re-entry whose reply is lost after its script
 * ran leaves Redis counting one hold more than the client. The holder's last unlock must free the lock all the
 * same; left counted, the watchdog would renew it with nobody behind it. The fair case was found by the checked
 * model of the fair lock (run {@code broken-fair-counts-from-redis}).
 */
class LostKindReentryReplyTest {

    private final String key = "lost-kind-reentry-reply-" + UUID.randomUUID();
    @RegisterExtension
    final ProxiedInstances instances = new ProxiedInstances(TestRedis.shared(), Duration.ofSeconds(3), Duration.ofMillis(500));

    @Test
    void theLastUnlockFreesAFairLockThatAReentryWithALostReplyCountedOnceMore() throws Exception {
        lastUnlockFrees(locker -> locker.getFairLock(key), locker -> locker.getFairLock(key));
    }

    @Test
    void theLastUnlockFreesAReadLockThatAReentryWithALostReplyCountedOnceMore() throws Exception {
        lastUnlockFrees(locker -> locker.getReadWriteLock(key).readLock(), locker -> locker.getReadWriteLock(key).writeLock());
    }

    @Test
    void theLastUnlockFreesAWriteLockThatAReentryWithALostReplyCountedOnceMore() throws Exception {
        lastUnlockFrees(locker -> locker.getReadWriteLock(key).writeLock(), locker -> locker.getReadWriteLock(key).writeLock());
    }

    /** {@code excluding}: a lock another instance can take only once the holder's lock is free. */
    private void lastUnlockFrees(Function<Locker, Lock> lockOf, Function<Locker, Lock> excluding) throws Exception {
        Lock held = lockOf.apply(instances.slowed.locker);
        held.lock();
        instances.proxy.delay(700); // beyond the 500 ms command timeout: the re-entry runs, its reply comes too late
        assertThat(catchThrowable(held::lock)).isInstanceOf(LockRedisException.class);
        instances.proxy.heal();

        held.unlock();

        assertThat(instances.slowed.locker.heldLockCount()).as("holds left after the caller's last unlock").isZero();
        Lock other = excluding.apply(instances.other.locker);
        assertThat(other.tryLock(5, TimeUnit.SECONDS)).as("free after the holder's last unlock").isTrue();
        other.unlock();
    }
}
