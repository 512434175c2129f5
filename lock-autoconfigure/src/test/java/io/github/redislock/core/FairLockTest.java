package io.github.redislock.core;

import io.github.redislock.RedisLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Waiters of every instance get a fair lock in the order they asked for it; a waiter that leaves blocks nobody. */
class FairLockTest extends TwoInstances {

    String queue;

    @BeforeEach
    void nameQueue() {
        queue = keys.queue();
    }

    @Test
    void grantsFollowTheOrderInWhichWaitersOfTwoInstancesQueued() throws Exception {
        RedisLock holder = first.locker.getFairLock(key);
        holder.lock();
        List<Integer> grants = new CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int position = i;
            LockerFixture instance = i % 2 == 0 ? second : first;
            waiters.add(threads.submit(() -> {
                RedisLock lock = instance.locker.getFairLock(key);
                lock.lock();
                grants.add(position);
                lock.unlock();
                return null;
            }));
            await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == position + 1);
        }
        holder.unlock();
        for (Future<?> waiter : waiters) {
            waiter.get(20, TimeUnit.SECONDS);
        }
        assertThat(grants).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(queueLength()).isZero();
    }

    @Test
    void aWaiterWhoseWaitRunsOutLeavesTheQueueAndTheNextOneGetsTheLock() throws Exception {
        RedisLock holder = first.locker.getFairLock(key);
        holder.lock();
        Future<Boolean> impatient = threads.submit(() -> second.locker.getFairLock(key).tryLock(800, -1, TimeUnit.MILLISECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);
        Future<Boolean> patient = threads.submit(() -> takeAndRelease(first, 20));
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 2);

        assertThat(impatient.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(queueLength()).isEqualTo(1);
        long releasedAt = System.nanoTime();
        holder.unlock();
        assertThat(patient.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt)).isLessThan(2000);
    }

    @Test
    void aCrashedWaitersPlaceExpiresWithoutBlockingTheWaitersBehindIt() throws Exception {
        RedisLock holder = first.locker.getFairLock(key);
        holder.lock();
        LockerFixture crashing = connect();
        Future<?> crashed = threads.submit(() -> {
            crashing.locker.getFairLock(key).lock();
            return null;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);
        Future<Boolean> behind = threads.submit(() -> takeAndRelease(second, 20));
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 2);

        // The waiter's instance dies: its connection goes first, so nobody refreshes or withdraws its place.
        ((LettuceConnectionFactory) crashing.connectionFactory).destroy();
        crashing.close();
        assertThat(first.redis.opsForList().index(queue, 0)).startsWith(crashing.locker.getClientId());
        long releasedAt = System.nanoTime();
        holder.unlock(); // tells the dead waiter, who never answers
        assertThat(behind.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt)).as("within about one place timeout")
                .isLessThan(3 * WATCHDOG_TIMEOUT.toMillis());
        assertThat(crashed).isDone();
    }

    @Test
    void aFairLockIsReentrantAndKeepsItsFencingToken() {
        RedisLock lock = first.locker.getFairLock(key);
        lock.lock();
        long token = lock.fencingToken();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.fencingToken()).isEqualTo(token);
        lock.unlock();
        lock.unlock();
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void aCountLeftByAnAcquisitionWhoseReplyWasLostDoesNotMakeTheNextOneAReentry() {
        // What a fair acquisition whose reply timed out but that ran on Redis leaves: a hold the thread never learnt of.
        String owner = first.locker.getClientId() + ":" + Thread.currentThread().getId();
        first.redis.opsForHash().put(LockerFixture.PREFIX + key, owner, "1");
        first.redis.expire(LockerFixture.PREFIX + key, WATCHDOG_TIMEOUT);

        RedisLock lock = first.locker.getFairLock(key);
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();

        assertThat(first.locker.isLocked(key)).as("lock left after the thread's only unlock").isFalse();
        assertThat(first.watchdog.watchedCount()).isZero();
    }

    @Test
    void tryLockWithoutWaitingDoesNotQueue() {
        RedisLock holder = first.locker.getFairLock(key);
        holder.lock();
        assertThat(second.locker.getFairLock(key).tryLock()).isFalse();
        assertThat(queueLength()).isZero();
        holder.unlock();
    }

    private boolean takeAndRelease(LockerFixture instance, int waitSeconds) throws InterruptedException {
        RedisLock lock = instance.locker.getFairLock(key);
        boolean taken = lock.tryLock(waitSeconds, -1, TimeUnit.SECONDS);
        if (taken) {
            lock.unlock();
        }
        return taken;
    }

    private long queueLength() {
        Long length = first.redis.opsForList().size(queue);
        return length == null ? 0 : length;
    }
}
