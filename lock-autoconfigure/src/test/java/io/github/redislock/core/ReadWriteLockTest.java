package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.LockLostException;
import io.github.redislock.FencingTokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/** Many readers or one writer, across instances; each reader's lease ends alone. */
class ReadWriteLockTest extends TwoInstances {

    @Test
    void neverAWriterTogetherWithAReaderOrAnotherWriterUnderMixedLoadFromTwoInstances() throws Exception {
        AtomicInteger writes = new AtomicInteger();
        try (OverlapDetector section = new OverlapDetector(first.redis, "counter-" + key)) {
            List<Callable<?>> workers = new ArrayList<>();
            for (LockerFixture instance : List.of(first, second)) {
                for (int t = 0; t < 8; t++) {
                    workers.add(() -> {
                        RedisReadWriteLock lock = instance.locker.getReadWriteLock(key);
                        for (int i = 0; i < 20; i++) {
                            if (ThreadLocalRandom.current().nextInt(4) == 0) {
                                lock.writeLock().lock();
                                try {
                                    writes.incrementAndGet();
                                    section.pass();
                                } finally {
                                    lock.writeLock().unlock();
                                }
                            } else {
                                lock.readLock().lock();
                                try {
                                    section.readPass();
                                } finally {
                                    lock.readLock().unlock();
                                }
                            }
                        }
                        return null;
                    });
                }
            }
            Together.run(workers);
            assertThat(writes.get()).as("writes done").isPositive();
            section.assertEveryPassWasAlone(writes.get());
        }
        assertThat(first.locker.isLocked(key)).isFalse();
        assertThat(first.redis.hasKey(LockKeys.of(LockerFixture.PREFIX, key).leases())).isFalse();
    }

    @Test
    void readersOfTwoInstancesShareTheLockAndKeepTheWriterOut() throws Exception {
        RedisReadWriteLock mine = first.locker.getReadWriteLock(key);
        RedisReadWriteLock theirs = second.locker.getReadWriteLock(key);
        ExecutorService theirReader = Executors.newSingleThreadExecutor();
        try {
            mine.readLock().lock();
            assertThat(theirReader.submit(() -> theirs.readLock().tryLock()).get()).isTrue();
            assertThat(theirs.writeLock().tryLock()).isFalse();
            long theirToken = theirReader.submit(() -> theirs.readLock().fencingToken()).get();
            assertThat(mine.readLock().fencingToken()).isNotEqualTo(theirToken);

            mine.readLock().unlock();
            assertThat(theirs.writeLock().tryLock()).as("one reader left").isFalse();
            theirReader.submit(() -> theirs.readLock().unlock()).get();
            assertThat(theirs.writeLock().tryLock()).isTrue();
            assertThat(mine.readLock().tryLock()).isFalse();
            theirs.writeLock().unlock();
        } finally {
            theirReader.shutdownNow();
        }
    }

    @Test
    void bothSidesAreReentrantAndTheWriterMayDowngradeToReading() {
        RedisReadWriteLock lock = first.locker.getReadWriteLock(key);
        lock.writeLock().lock();
        lock.writeLock().lock();
        long token = lock.writeLock().fencingToken();
        lock.readLock().lock();
        assertThat(lock.writeLock().getHoldCount()).isEqualTo(2);
        assertThat(lock.readLock().getHoldCount()).isEqualTo(1);
        assertThat(lock.readLock().fencingToken()).as("one owner, one token").isEqualTo(token);
        lock.writeLock().unlock();
        lock.writeLock().unlock();

        assertThat(second.locker.getReadWriteLock(key).readLock().tryLock()).as("readers welcome after the downgrade").isTrue();
        second.locker.getReadWriteLock(key).readLock().unlock();
        assertThat(second.locker.getReadWriteLock(key).writeLock().tryLock()).as("the downgraded writer still reads").isFalse();
        assertThat(FencingTokens.current(key)).isEqualTo(token);
        lock.readLock().unlock();
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void aReaderAskingForTheWriteLockIsToldItWouldWaitForItself() {
        RedisReadWriteLock lock = first.locker.getReadWriteLock(key);
        lock.readLock().lock();
        assertThatThrownBy(() -> lock.writeLock().tryLock())
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(key)
                .hasMessageContaining("Release the read lock first");
        lock.readLock().unlock();
    }

    @Test
    void aCrashedReadersLeaseEndsAloneAndThenFreesTheLock() throws Exception {
        LockerFixture crashing = connect();
        crashing.locker.getReadWriteLock(key).readLock().lock();
        first.locker.getReadWriteLock(key).readLock().lock();
        crashing.close(); // dies without unlocking: its watchdog stops renewing

        // the live reader is still renewed, so the writer keeps waiting after the crashed reader's lease ended
        assertThat(second.locker.getReadWriteLock(key).writeLock().tryLock(2 * WATCHDOG_TIMEOUT.toMillis(), -1, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(first.redis.opsForZSet().range(LockKeys.of(LockerFixture.PREFIX, key).leases(), 0, -1))
                .as("owners with a lease, two watchdog timeouts after the crash").containsExactly(first.locker.getClientId() + ":" + Thread.currentThread().getId());
        assertThat(first.locker.getReadWriteLock(key).readLock().isHeldByCurrentThread()).isTrue();
        first.locker.getReadWriteLock(key).readLock().unlock();

        assertThat(second.locker.getReadWriteLock(key).writeLock().tryLock()).as("free once the live reader left").isTrue();
        second.locker.getReadWriteLock(key).writeLock().unlock();
        assertThat(first.lostEvents).isEmpty();
    }

    @Test
    void aWriterTakesTheLockOnceACrashedReadersLeaseRunsOut() throws Exception {
        LockerFixture crashing = connect();
        crashing.locker.getReadWriteLock(key).readLock().lock();
        crashing.close();
        long start = System.nanoTime();
        assertThat(second.locker.getReadWriteLock(key).writeLock().tryLock(5, -1, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3 * WATCHDOG_TIMEOUT.toMillis());
        second.locker.getReadWriteLock(key).writeLock().unlock();
    }

    @Test
    void aReadCountLeftByAnAcquisitionWhoseReplyWasLostDoesNotMakeTheNextOneAReentry() {
        String hash = leaveAHoldTheThreadNeverLearntOf(LockKind.READ);

        RedisLock read = first.locker.getReadWriteLock(key).readLock();
        read.lock();
        assertThat(read.getHoldCount()).isEqualTo(1);
        read.unlock();

        assertThat(first.redis.hasKey(hash)).as("lock left after the thread's only unlock").isFalse();
        assertThat(first.watchdog.watchedCount()).isZero();
    }

    @Test
    void aWriteCountLeftByAnAcquisitionWhoseReplyWasLostDoesNotMakeTheNextOneAReentry() {
        String hash = leaveAHoldTheThreadNeverLearntOf(LockKind.WRITE);

        RedisLock write = first.locker.getReadWriteLock(key).writeLock();
        write.lock();
        write.unlock();

        assertThat(first.redis.hasKey(hash)).as("lock left after the thread's only unlock").isFalse();
    }

    /** What an acquisition whose reply timed out but that ran on Redis leaves for the calling thread; returns the lock hash. */
    private String leaveAHoldTheThreadNeverLearntOf(LockKind kind) {
        String owner = first.locker.getClientId() + ":" + Thread.currentThread().getId();
        String hash = LockerFixture.PREFIX + key;
        first.redis.opsForHash().put(hash, "mode", kind == LockKind.READ ? "read" : "write");
        if (kind == LockKind.WRITE) {
            first.redis.opsForHash().put(hash, "writer", owner);
        }
        first.redis.opsForHash().put(hash, owner + (kind == LockKind.READ ? ":r" : ":w"), "1");
        first.redis.opsForHash().put(hash, owner + ":t", "7");
        first.redis.opsForZSet().add(LockKeys.of(LockerFixture.PREFIX, key).leases(), owner, System.currentTimeMillis() + WATCHDOG_TIMEOUT.toMillis());
        first.redis.expire(hash, WATCHDOG_TIMEOUT);
        return hash;
    }

    @Test
    void anEndedLeasedReadHoldDoesNotKeepTheSameThreadFromTheWriteLock() throws Exception {
        RedisReadWriteLock lock = first.locker.getReadWriteLock(key);
        assertThat(lock.readLock().tryLock(0, 300, TimeUnit.MILLISECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !first.redis.hasKey(LockerFixture.PREFIX + key));
        Thread.sleep(50); // the local clock may lag Redis's by a little

        assertThat(lock.writeLock().tryLock(1, -1, TimeUnit.SECONDS)).isTrue();
        lock.writeLock().unlock();
        assertThatThrownBy(() -> lock.readLock().unlock()).isInstanceOf(LockLostException.class);
    }

    @Test
    void theWatchdogKeepsAReadHoldAliveBeyondItsTimeout() throws Exception {
        RedisLock read = first.locker.getReadWriteLock(key).readLock();
        read.lock();
        Thread.sleep(3 * WATCHDOG_TIMEOUT.toMillis());
        assertThat(read.isHeldByCurrentThread()).isTrue();
        assertThat(second.locker.getReadWriteLock(key).writeLock().tryLock()).isFalse();
        read.unlock();
        assertThat(first.lostEvents).isEmpty();
    }

    @Test
    void theReleaseOfTheWriterWakesEveryWaitingReaderOfAnInstance() throws Exception {
        RedisLock write = first.locker.getReadWriteLock(key).writeLock();
        assertThat(write.tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
        ExecutorService readers = Executors.newFixedThreadPool(3);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                results.add(readers.submit(() -> {
                    RedisLock read = second.locker.getReadWriteLock(key).readLock();
                    boolean taken = read.tryLock(20, -1, TimeUnit.SECONDS);
                    if (taken) {
                        read.unlock();
                    }
                    return taken;
                }));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> second.subscriptions.waiterCount() == 3);
            long releasedAt = System.nanoTime();
            write.unlock();
            for (Future<Boolean> result : results) {
                assertThat(result.get(5, TimeUnit.SECONDS)).isTrue();
            }
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt)).as("long before the 30 s lease").isLessThan(3000);
        } finally {
            readers.shutdownNow();
        }
    }

    @Test
    void unlockingTheKeyAsAPlainLockWhileHoldingItsReadLockNamesTheReadLockAndReleasesNothing() {
        RedisReadWriteLock lock = first.locker.getReadWriteLock(key);
        lock.readLock().lock();
        try {
            assertThatThrownBy(() -> first.locker.unlock(key)).isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("which holds the read lock of '" + key + "' instead");
            assertThat(lock.readLock().isHeldByCurrentThread()).as("the read hold is still there").isTrue();
        } finally {
            lock.readLock().unlock();
        }
    }
}
