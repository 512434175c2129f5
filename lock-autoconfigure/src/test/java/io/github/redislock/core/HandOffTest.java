package io.github.redislock.core;

import io.github.redislock.core.script.LockCommands;
import io.github.redislock.RedisMultiLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * A waiting plain lock queues, and a release hands the lock straight to the first live waiter: no
 * race of woken waiters, no second round trip for the next owner. Waiters that left or died are skipped.
 */
class HandOffTest extends TwoInstances {

    @Test
    void theReleaseItselfMakesTheFirstQueuedWaiterTheOwner() throws Exception {
        first.locker.lock(key);
        CountDownLatch mayUnlock = new CountDownLatch(1);
        Future<?> waiter = threads.submit(() -> {
            second.locker.lock(key);
            mayUnlock.await();
            second.locker.unlock(key);
            return null;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);

        first.locker.unlock(key);

        assertThat(first.redis.<String, String>opsForHash().keys(keys.name()))
                .as("owner fields right after the release returned").singleElement().asString().startsWith(second.locker.getClientId() + ":");
        assertThat(queueLength()).isZero();
        mayUnlock.countDown();
        waiter.get(10, TimeUnit.SECONDS);
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void aHandOffIsAnnouncedToTheWaitersInstanceAloneNotOnTheLocksChannel() throws Exception {
        List<String> onLockChannel = new CopyOnWriteArrayList<>();
        RedisMessageListenerContainer listener = new RedisMessageListenerContainer();
        listener.setConnectionFactory(first.connectionFactory);
        // The container's default executor runs each message on a thread of its own, which may reorder them.
        listener.setTaskExecutor(new SyncTaskExecutor());
        listener.addMessageListener((message, pattern) -> onLockChannel.add(new String(message.getBody(), StandardCharsets.UTF_8)),
                new ChannelTopic(keys.channel()));
        listener.afterPropertiesSet();
        listener.start();
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(keys.channel()) >= 1);
            first.locker.lock(key);
            Future<?> waiter = threads.submit(() -> {
                second.locker.lock(key);
                second.locker.unlock(key); // nobody queued behind it: this release frees the lock, and tells no one
                return null;
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);
            first.locker.unlock(key);
            waiter.get(10, TimeUnit.SECONDS);

            // Redis delivers a channel's messages in order: once this one arrived, every earlier one has.
            String lastMessage = "end of test " + key;
            first.redis.convertAndSend(keys.channel(), lastMessage);
            await().atMost(Duration.ofSeconds(5)).until(() -> onLockChannel.contains(lastMessage));
            // The hand-off went to the waiter's inbox; the waiter's release found nobody blocked behind it, so it published nothing.
            assertThat(onLockChannel).as("messages on the lock's channel, in order").containsExactly(lastMessage);
        } finally {
            listener.stop();
            listener.destroy();
        }
    }

    @Test
    void releasesHandTheLockOnInTheOrderWaitersOfTwoInstancesQueued() throws Exception {
        first.locker.lock(key);
        List<Integer> owners = new CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int position = i;
            LockerFixture instance = i % 2 == 0 ? second : first;
            waiters.add(threads.submit(() -> {
                instance.locker.lock(key);
                owners.add(position);
                instance.locker.unlock(key);
                return null;
            }));
            await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == position + 1);
        }

        first.locker.unlock(key);

        for (Future<?> waiter : waiters) {
            waiter.get(20, TimeUnit.SECONDS);
        }
        assertThat(owners).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void aHandedOverHoldCarriesAHigherFencingToken() throws Exception {
        // A waiter with a 30 s watchdog comes back to Redis only every 3.3 s: within this test only the
        // hand-off can make it the owner. A retry that finds a missed hand-off draws a token of its own.
        try (LockerFixture patient = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(30))) {
            first.locker.lock(key);
            long holderToken = first.locker.fencingToken(key);
            Future<Long> waiterToken = threads.submit(() -> {
                patient.locker.lock(key);
                try {
                    return patient.locker.fencingToken(key);
                } finally {
                    patient.locker.unlock(key);
                }
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);

            first.locker.unlock(key);

            // Above the holder's: its token plus one, or the Redis clock when that is higher (release.lua).
            assertThat(waiterToken.get(10, TimeUnit.SECONDS)).isGreaterThan(holderToken);
        }
    }

    @Test
    void aWaiterWhoseWaitRanOutLeavesTheQueueAndTheReleaseFreesTheLock() throws Exception {
        first.locker.lock(key);
        assertThat(threads.submit(() -> second.locker.tryLock(key, 300, -1, TimeUnit.MILLISECONDS)).get(10, TimeUnit.SECONDS)).isFalse();
        assertThat(queueLength()).isZero();

        first.locker.unlock(key);

        assertThat(first.locker.isLocked(key)).as("held by the waiter that gave up").isFalse();
        assertThat(first.redis.hasKey(keys.waitQueue()) || first.redis.hasKey(keys.waitDeadlines())).as("wait queue keys left").isFalse();
    }

    @Test
    void aQueuedWaiterThatStoppedRefreshingItsPlaceIsSkipped() throws Exception {
        String ghost = "crashed-instance:1";
        Future<Boolean> live = heldWithAWaiterBehind(ghost, 1500);
        await().atMost(Duration.ofSeconds(5)).until(() -> isPastItsDeadline(ghost));

        first.locker.unlock(key);

        assertThat(live.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(first.redis.opsForHash().hasKey(keys.name(), ghost)).as("the crashed waiter got the lock").isFalse();
    }

    @Test
    void aWaiterThatStopsWaitingAfterTheLockWasHandedToItPassesItOn() throws Exception {
        String leaving = "leaving-instance:1";
        Future<Boolean> next = heldWithAWaiterBehind(leaving, 10_000);
        first.locker.unlock(key);
        assertThat(first.redis.opsForHash().hasKey(keys.name(), leaving)).as("handed to the first in the queue").isTrue();

        assertThat(first.commands.await(first.commands.withdrawAsync(keys, leaving, member(leaving), WATCHDOG_TIMEOUT.toMillis()))).as("it had been handed the lock").isTrue();

        assertThat(next.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void aHandOffAnnouncedWhileThePubSubConnectionWasDownIsFoundByTheWaitersNextTry() throws Exception {
        // The handed-over hold's lease is this timeout, and the waiter tries again every ninth of it: holding the lock
        // well before the lease could have run out (and the lock been taken afresh), it found the hand-off itself.
        Duration watchdogTimeout = Duration.ofSeconds(3);
        try (LockerFixture waiterInstance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), watchdogTimeout)) {
            first.locker.lock(key);
            Future<Long> heldAt = threads.submit(() -> {
                waiterInstance.locker.lock(key);
                long at = System.nanoTime();
                assertThat(waiterInstance.locker.getHoldCount(key)).as("holds exactly one hold").isEqualTo(1);
                return at;
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1 && waiterInstance.subscriptions.waiterCount() == 1);
            waiterInstance.subscriptions.disconnect();

            long releasedAt = System.nanoTime();
            first.locker.unlock(key);

            assertThat(TimeUnit.NANOSECONDS.toMillis(heldAt.get(10, TimeUnit.SECONDS) - releasedAt)).as("ms from the release until the waiter held the lock")
                    .isLessThan(watchdogTimeout.toMillis() / 2);
            assertThat(waiterInstance.locker.heldLockCount()).isEqualTo(1);
            assertThat(first.redis.opsForHash().keys(keys.name())).as("owner fields").singleElement().asString()
                    .startsWith(waiterInstance.locker.getClientId() + ":");
        }
    }

    @Test
    void aMultiLockWaiterGetsTheLockOnceTheQueuedWaitersAreServed() throws Exception {
        first.locker.lock(key);
        Future<?> queued = threads.submit(() -> {
            second.locker.lock(key);
            second.locker.unlock(key);
            return null;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);
        Future<Boolean> multi = threads.submit(() -> {
            RedisMultiLock both = second.locker.getMultiLock(key, key + "-other");
            boolean acquired = both.tryLock(10, -1, TimeUnit.SECONDS);
            if (acquired) {
                both.unlock();
            }
            return acquired;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> second.subscriptions.waiterCount() == 2);

        first.locker.unlock(key);

        queued.get(10, TimeUnit.SECONDS);
        assertThat(multi.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    @Test
    void aClosingLockerWithdrawsItsQueuedWaitsSoNoReleaseHandsThemTheLock() throws Exception {
        first.locker.lock(key);
        Future<Boolean> waiter = threads.submit(() -> second.locker.tryLock(key, 10, 60, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 1);

        second.locker.close();

        assertThat(queueLength()).as("queue places left by the closed Locker").isZero();
        first.locker.unlock(key);
        assertThat(first.locker.isLocked(key)).as("handed to the closed Locker's waiter").isFalse();
        assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed").hasMessageContaining(key);
    }

    /** The first instance holds the lock; {@code absentOwner} (no instance behind it) queued first, a waiter of the second instance next. */
    private Future<Boolean> heldWithAWaiterBehind(String absentOwner, long absentOwnersKeepPlaceMillis) {
        first.locker.lock(key);
        queue(absentOwner, absentOwnersKeepPlaceMillis);
        Future<Boolean> live = threads.submit(() -> takeAndRelease(second));
        await().atMost(Duration.ofSeconds(5)).until(() -> queueLength() == 2);
        return live;
    }

    private boolean takeAndRelease(LockerFixture instance) throws InterruptedException {
        if (!instance.locker.tryLock(key, 10, -1, TimeUnit.SECONDS)) {
            return false;
        }
        instance.locker.unlock(key);
        return true;
    }

    /** Puts an owner into the wait queue as a blocked lock() of another instance would, without that instance. */
    private void queue(String owner, long keepPlaceMillis) {
        LockCommands.Acquisition blocked = first.commands.await(first.commands.acquireAsync(List.of(keys), owner, WATCHDOG_TIMEOUT.toMillis(),
                new boolean[] {true}, keepPlaceMillis, member(owner), false, keepPlaceMillis > 0, false));
        assertThat(blocked.acquired()).isFalse();
    }

    private static long subscribers(String channel) {
        return (Long) ((List<?>) TestRedis.shared().command("PUBSUB", "NUMSUB", channel)).get(1);
    }

    private long queueLength() {
        return first.redis.opsForList().size(keys.waitQueue());
    }

    /** Its place's deadline has passed on Redis's clock, or its deadline is gone already (the deadlines' key expired with its latest deadline). */
    private boolean isPastItsDeadline(String owner) {
        Double deadline = first.redis.opsForZSet().score(keys.waitDeadlines(), member(owner));
        return deadline == null || redisMillis() > deadline;
    }

    private static String member(String owner) {
        return LockCommands.queueMember(LockCommands.inboxField(LockerFixture.PREFIX + "__anchor:absent-instance"), "1:" + owner, WATCHDOG_TIMEOUT.toMillis());
    }

    private long redisMillis() {
        List<?> time = (List<?>) TestRedis.shared().command("TIME");
        return Long.parseLong(time.get(0).toString()) * 1000 + Long.parseLong(time.get(1).toString()) / 1000;
    }
}
