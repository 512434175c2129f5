package io.github.redislock.core;

import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.RedisLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A release looks for waiters and publishes only when the lock hash carries the {@code waiters} mark,
 * which a waiter writes in the same script call that finds the lock held (see {@code release.lua}).
 * These are the cases where a waiter exists while the hash does not say so, or where the mark is
 * written by another kind of waiter: each waiter must still get the lock, and soon.
 *
 * <p>The waiters here run with a 30 s watchdog ({@link LockerFixture#SLOW_RETRIES}): they come back to
 * Redis on their own only when the lease they last saw ends or every 3.3 s, so a wake-up within
 * {@link LockerFixture#WOKEN_WITHIN} of a release was a message, not a retry.
 */
class WaitersMarkTest extends TwoInstances {

    LockerFixture patient;

    @BeforeEach
    void start() {
        patient = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), LockerFixture.SLOW_RETRIES);
        // Its inbox heard from now on: a wait that queues later does not look at the lock again after joining,
        // so nothing but the hand-off, a message or the end of the lease it saw brings it back to Redis.
        patient.subscriptions.join(keys.channel() + ":warm-up", null, null).join().close();
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        patient.close();
    }

    @Test
    void anUncontendedReleaseNeitherLooksAtTheQueueNorPublishes() {
        RedisServerProcess redis = TestRedis.shared();
        first.locker.lock(key);
        assertThat(first.redis.opsForHash().hasKey(keys.name(), "waiters")).isFalse();
        long lpops = redis.commandCount("lpop");
        long publishes = redis.commandCount("publish");
        first.locker.unlock(key);
        // other tests may share this server, but none runs while this one does (the suite runs classes one at a time)
        assertThat(redis.commandCount("lpop") - lpops).as("queue lookups by the release").isZero();
        assertThat(redis.commandCount("publish") - publishes).as("messages published by the release").isZero();
    }

    @Test
    void aWaiterQueuedUnderAnEndedHolderGetsTheLockFreedByAnOwnerThatFoundItFreeAndNeverMarkedIt() throws Exception {
        assertThat(first.locker.tryLock(key, 0, 3, TimeUnit.SECONDS)).isTrue();
        Future<Long> heldAt = patientWaiter();
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1 && hasMark());
        first.redis.delete(keys.name()); // the holder's lease ends (as a crash would leave it): mark and hold go with the hash

        Future<?> barging = threads.submit(() -> {
            second.locker.lock(key); // finds the lock free: takes it without looking at the queue, and writes no mark
            assertThat(hasMark()).isFalse();
            second.locker.unlock(key); // so its release hands nothing over: the queued waiter is still queued
            return null;
        });
        barging.get(5, TimeUnit.SECONDS);
        assertThat(queueLength()).as("still queued after the unmarked release").isEqualTo(1);

        // The waiter comes back when the lease it saw (3 s) would have ended, finds the lock free and takes it.
        long waiterHeld = heldAt.get(10, TimeUnit.SECONDS);
        assertThat(waiterHeld).isPositive();
        assertThat(queueLength()).isZero();
        assertThat(first.redis.hasKey(keys.name())).isFalse();
    }

    @Test
    void aWaiterQueuedUnderAnEndedHolderMarksTheNextHolderAndIsHandedTheLockByItsRelease() throws Exception {
        assertThat(first.locker.tryLock(key, 0, 2, TimeUnit.SECONDS)).isTrue();
        Future<Long> heldAt = patientWaiter();
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1 && hasMark());
        first.redis.delete(keys.name());
        assertThat(second.locker.tryLock(key)).isTrue(); // an owner that never queued takes the free lock: no mark
        assertThat(hasMark()).isFalse();

        // The waiter's own retry (when the 2 s lease it saw would have ended) finds the new holder and marks it.
        await().atMost(Duration.ofSeconds(10)).until(this::hasMark);
        long releasedAt = System.nanoTime();
        second.locker.unlock(key);

        assertThat(TimeUnit.NANOSECONDS.toMillis(heldAt.get(10, TimeUnit.SECONDS) - releasedAt)).as("ms from the release until the waiter held it")
                .isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
    }

    @Test
    void aReadLockWaiterBlockedByAPlainLockMarksItAndIsWokenByItsRelease() throws Exception {
        first.locker.lock(key);
        Future<Long> heldAt = threads.submit(() -> {
            RedisLock read = patient.locker.getReadWriteLock(key).readLock();
            assertThat(read.tryLock(10, -1, TimeUnit.SECONDS)).isTrue();
            long at = System.nanoTime();
            read.unlock();
            return at;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> hasMark() && patient.subscriptions.waiterCount() == 1);
        long releasedAt = System.nanoTime();
        first.locker.unlock(key);

        assertThat(TimeUnit.NANOSECONDS.toMillis(heldAt.get(10, TimeUnit.SECONDS) - releasedAt)).as("ms from the release until the reader held it")
                .isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
    }

    @Test
    void aWaiterThatLeavesTheQueueForAFreeLockMarksItForTheWaitersStillBehindIt() throws Exception {
        first.locker.lock(key);
        // An earlier waiter, driven call by call so that its retry comes exactly when the test wants it.
        String earlier = "earlier-instance:1";
        String member = LockCommands.queueMember(LockCommands.inboxField("earlier-inbox"), "1:" + earlier, 30_000);
        java.util.List<LockKeys> group = java.util.List.of(keys);
        assertThat(first.commands.await(first.commands.acquireAsync(group, earlier, 30_000, new boolean[] {true}, 10_000, member, false, true, false)).acquired()).isFalse();
        Future<Long> heldAt = patientWaiter();
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 2);
        first.redis.delete(keys.name()); // the holder's lease ends

        LockCommands.Acquisition retry = first.commands.await(first.commands.acquireAsync(group, earlier, 30_000, new boolean[] {true}, 10_000, member, true, true, false));
        assertThat(retry.acquired()).as("the earlier waiter's retry finds the lock free").isTrue();
        assertThat(queueLength()).isEqualTo(1);
        assertThat(hasMark()).as("mark for the waiter left behind").isTrue();

        long releasedAt = System.nanoTime();
        assertThat(first.commands.await(first.commands.releaseAsync(group, earlier, new long[] {30_000}, new long[1], null, false))[0]).isZero();
        assertThat(TimeUnit.NANOSECONDS.toMillis(heldAt.get(10, TimeUnit.SECONDS) - releasedAt)).as("ms from the release until the waiter held it")
                .isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
        assertThat(queueLength()).isZero();
    }

    /** A patient waiter for the lock; the future gives the {@link System#nanoTime()} at which it held it. */
    private Future<Long> patientWaiter() {
        return threads.submit(() -> {
            patient.locker.lock(key);
            long at = System.nanoTime();
            patient.locker.unlock(key);
            return at;
        });
    }

    private boolean hasMark() {
        return first.redis.opsForHash().hasKey(keys.name(), "waiters");
    }

    private long queueLength() {
        Long length = first.redis.opsForList().size(keys.waitQueue());
        return length == null ? 0 : length;
    }
}
