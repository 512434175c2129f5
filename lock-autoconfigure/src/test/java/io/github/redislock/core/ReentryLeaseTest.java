package io.github.redislock.core;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisMultiLock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * A re-entry may lengthen a lock's life, never shorten it: the outer section keeps the lock it entered with.
 * Nor does a re-entry change how the hold lives: a leased hold stays leased (nothing renews it), a
 * watchdog hold stays under the watchdog.
 */
class ReentryLeaseTest extends TwoInstances {

    static final long SHORT_LEASE_MILLIS = 300;
    /**
     * Shorter than the 1 s watchdog timeout, yet past two of its ticks (a third of it each): a hold the watchdog
     * wrongly took over would be renewed to 1 s before its lease ends, and again every tick, so no other instance
     * would get it within 3 leases.
     */
    static final long LEASE_MILLIS = 800;

    @Test
    void aReentryWithAShorterLeaseDoesNotShortenAWatchdogHold() throws Exception {
        first.locker.lock(key);
        first.locker.lock(key, TimeUnit.MILLISECONDS, (int) SHORT_LEASE_MILLIS);

        assertStillHeldAfterTheShortLease(first.locker.getLock(key));
        first.locker.unlock(key);
        first.locker.unlock(key);
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void aReentryWithAShorterLeaseDoesNotShortenALeasedHold() throws Exception {
        assertThat(first.locker.tryLock(key, 0, 5000, TimeUnit.MILLISECONDS)).isTrue();
        assertThat(first.locker.tryLock(key, 0, SHORT_LEASE_MILLIS, TimeUnit.MILLISECONDS)).isTrue();

        assertStillHeldAfterTheShortLease(first.locker.getLock(key));
        first.locker.unlock(key);
        assertStillHeldAfterTheShortLease(first.locker.getLock(key)); // the inner release does not restore the short lease either
        first.locker.unlock(key);
    }

    @Test
    void aFairReentryWithAShorterLeaseDoesNotShortenAWatchdogHold() throws Exception {
        RedisLock fair = first.locker.getFairLock(key);
        fair.lock();
        assertThat(fair.tryLock(0, SHORT_LEASE_MILLIS, TimeUnit.MILLISECONDS)).isTrue();

        assertStillHeldAfterTheShortLease(fair);
        fair.unlock();
        fair.unlock();
    }

    @Test
    void aReadReentryWithAShorterLeaseDoesNotShortenAWatchdogReadHold() throws Exception {
        RedisLock read = first.locker.getReadWriteLock(key).readLock();
        read.lock();
        assertThat(read.tryLock(0, SHORT_LEASE_MILLIS, TimeUnit.MILLISECONDS)).isTrue();

        Thread.sleep(3 * SHORT_LEASE_MILLIS);
        assertThat(second.locker.getReadWriteLock(key).writeLock().tryLock()).as("another instance's writer got in").isFalse();
        assertThat(read.getHoldCount()).isEqualTo(2);
        read.unlock();
        read.unlock();
    }

    @Test
    void aPlainReentryIntoALeasedHoldKeepsItsLease() throws Exception {
        assertThat(first.locker.tryLock(key, 0, LEASE_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
        first.locker.lock(key); // no lease of its own: takes the outer hold's, the watchdog stays out

        long start = System.nanoTime();
        assertThat(second.locker.tryLock(key, 3 * LEASE_MILLIS, LEASE_MILLIS, TimeUnit.MILLISECONDS))
                .as("the other instance got the lock once the lease ended").isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("not before the lease ended").isGreaterThan(LEASE_MILLIS / 2);
        second.locker.unlock(key);
    }

    @Test
    void aPlainReentryIntoALeasedFairHoldKeepsItsLease() throws Exception {
        RedisLock fair = first.locker.getFairLock(key);
        assertThat(fair.tryLock(0, LEASE_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
        fair.lock();

        RedisLock other = second.locker.getFairLock(key);
        assertThat(other.tryLock(3 * LEASE_MILLIS, LEASE_MILLIS, TimeUnit.MILLISECONDS)).as("the other instance got the lock once the lease ended").isTrue();
        other.unlock();
    }

    @Test
    void aPlainReentryIntoALeasedWriteHoldKeepsItsLease() throws Exception {
        RedisLock write = first.locker.getReadWriteLock(key).writeLock();
        assertThat(write.tryLock(0, LEASE_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
        write.lock();

        RedisLock other = second.locker.getReadWriteLock(key).writeLock();
        assertThat(other.tryLock(3 * LEASE_MILLIS, LEASE_MILLIS, TimeUnit.MILLISECONDS)).as("the other instance got the lock once the lease ended").isTrue();
        other.unlock();
    }

    @Test
    void aMultiLockThatReentersALeasedHoldAndTakesAFreeOneLeavesTheLeasedOneToItsLeaseAndWatchesTheOther() throws Exception {
        String leased = key + "-leased";
        String free = key + "-free";
        assertThat(first.locker.tryLock(leased, 0, LEASE_MILLIS, TimeUnit.MILLISECONDS)).isTrue();
        RedisMultiLock both = first.locker.getMultiLock(leased, free);
        both.lock(); // one lease for both keys in Redis: the free key's hold is the watchdog's, the leased one's is not

        assertThat(second.locker.tryLock(leased, 3 * LEASE_MILLIS, LEASE_MILLIS, TimeUnit.MILLISECONDS))
                .as("the other instance got the leased key once its lease ended").isTrue();
        second.locker.unlock(leased);
        assertThat(second.locker.tryLock(free)).as("the other instance got the key the watchdog keeps").isFalse();
        assertThat(first.locker.isHeldByCurrentThread(free)).isTrue();
        first.locker.unlock(free);
    }

    @Test
    void aPlainReentryIntoALeasedAsyncHoldKeepsItsLease() throws Exception {
        LockHandle handle = first.async.acquire(key, Duration.ZERO, Duration.ofMillis(LEASE_MILLIS)).toCompletableFuture().get(5, TimeUnit.SECONDS);
        first.async.acquire(handle, Duration.ZERO, null).toCompletableFuture().get(5, TimeUnit.SECONDS); // a null lease: the watchdog's

        assertThat(second.locker.tryLock(key, 3 * LEASE_MILLIS, LEASE_MILLIS, TimeUnit.MILLISECONDS))
                .as("the other instance got the lock once the lease ended").isTrue();
        second.locker.unlock(key);
    }

    /** Past the short lease the lock is still the outer holder's: no other instance gets it. */
    private void assertStillHeldAfterTheShortLease(RedisLock lock) throws InterruptedException {
        Thread.sleep(3 * SHORT_LEASE_MILLIS);
        assertThat(second.locker.tryLock(key)).as("another instance got the lock").isFalse();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
    }
}
