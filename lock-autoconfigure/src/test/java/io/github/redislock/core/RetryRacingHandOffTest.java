package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.core.wait.LockAttempt;
import io.github.redislock.core.wait.LockWait;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The model's trail {@code code-retry-races-hand-off}, step by step on a real Redis: a release hands
 * the lock to a queued wait; before the waiter reads the hand-off message, the hand-off's claim lease
 * ends and another owner takes the lock; the waiter's own retry, racing the message, finds the lock
 * held and queues its member again. Whatever the wait then does with the message, it must not end
 * with that place still queued: a release would hand the lock to a wait that is over, and the lock
 * would stay taken for the claim lease.
 *
 * <p>The steps a {@link LockWait} takes in one order here run in the order of the trail; a lease that
 * ends is the key deleted, as its expiry does. The watchdog timeout is long, so no queue place lapses
 * and no claim lease ends by the clock during the test.
 */
class RetryRacingHandOffTest {

    /** Long enough that nothing lapses by itself during the test: every lease end here is a deliberate step. */
    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(30);

    LockerFixture holder;
    LockerFixture waiting;
    String key;
    LockKeys keys;
    String waiter;

    @BeforeEach
    void connect() {
        holder = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), WATCHDOG_TIMEOUT);
        waiting = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), WATCHDOG_TIMEOUT);
        key = getClass().getSimpleName() + "-" + UUID.randomUUID();
        keys = LockKeys.of(LockerFixture.PREFIX, key);
        waiter = waiting.locker.getClientId() + ":" + Thread.currentThread().getId(); // this thread's owner in `waiting`
    }

    @AfterEach
    void close() {
        try {
            holder.redis.delete(Internals.plainLockKeys(LockerFixture.PREFIX, key));
        } finally {
            holder.close();
            waiting.close();
        }
    }

    @Test
    void aHandOffMessageReadAfterARetryFoundTheLockHeldIsNotTakenAndLeavesNoPlace() {
        long lease = WATCHDOG_TIMEOUT.toMillis(); // a watched lease: the hand-off's claim lease is the whole lease
        LockAttempt wait = waiting.locker.attempts.queuing(LockKind.PLAIN, keys, waiter, lease, lease, false, false);
        long token = retryRacesTheHandOff(wait);

        assertThat(wait.handedOver(token)).as("the hand-off, whose claim lease ended before another owner took the lock")
                .isEqualTo(LockAttempt.HandOff.EXPIRED);
        wait.abandon(false).join(); // the wait times out

        assertNoPlaceLeft();
        holder.locker.unlock(key);
        assertThat(holder.locker.isLocked(key)).as("the lock after its holder's release, with no live wait queued").isFalse();
    }

    @Test
    void aTryThatTakesTheLockAfterAnExpiredHandOffLeavesNoPlace() {
        long lease = 2 * WATCHDOG_TIMEOUT.toMillis(); // longer than the claim lease: the hand-off is claimed in Redis
        LockAttempt wait = waiting.locker.attempts.queuing(LockKind.PLAIN, keys, waiter, lease, lease, false, false);
        long token = retryRacesTheHandOff(wait);
        assertThat(wait.handedOver(token)).isEqualTo(LockAttempt.HandOff.EXPIRED);

        holder.redis.delete(keys.name()); // the other owner's lease ends
        assertThat(tryOnce(wait)).as("the wait's next try").isNull();

        assertNoPlaceLeft();
        waiting.locker.unlock(key);
        assertThat(waiting.locker.isLocked(key)).as("the lock after the wait's owner released it").isFalse();
    }

    @Test
    void aTryWhoseReplyWasLostLeavesNoPlaceOnceALaterTryTakesTheLock() {
        long lease = 2 * WATCHDOG_TIMEOUT.toMillis();
        LockAttempt wait = waiting.locker.attempts.queuing(LockKind.PLAIN, keys, waiter, lease, lease, false, false);
        long token = retryRacesTheHandOff(wait);
        assertThat(wait.handedOver(token)).isEqualTo(LockAttempt.HandOff.EXPIRED);

        wait.send(true).join(); // a retry whose reply is lost: Redis queued the member, the wait never settles it
        holder.redis.delete(keys.name()); // the other owner's lease ends
        assertThat(tryOnce(wait)).as("the wait's next try").isNull();

        assertNoPlaceLeft();
        waiting.locker.unlock(key);
        assertThat(waiting.locker.isLocked(key)).as("the lock after the wait's owner released it").isFalse();
    }

    /**
     * The trail up to the waiter reading its message: the wait queues, the holder's release hands it the
     * lock, the claim lease ends, the holder takes the lock again, and the wait's retry finds it held.
     *
     * @return the hand-off's fencing token, as its message carries it
     */
    private long retryRacesTheHandOff(LockAttempt wait) {
        holder.locker.lock(key);
        assertThat(tryOnce(wait)).as("the wait's first try").isNotNull();
        assertThat(queueLength()).isEqualTo(1);

        long token = holder.locker.fencingToken(key) + 1; // a hand-off's token is at least one above the holder's
        holder.locker.unlock(key);
        assertThat(holder.redis.opsForHash().hasKey(keys.name(), waiter)).as("handed to the waiter").isTrue();
        holder.redis.delete(keys.name()); // the hand-off's claim lease ends before the waiter reads the message

        holder.locker.lock(key);
        assertThat(tryOnce(wait)).as("the wait's retry, racing its hand-off message").isNotNull();
        return token;
    }

    private static LockAttempt.Blocked tryOnce(LockAttempt wait) {
        return wait.settle(wait.send(true).join());
    }

    private void assertNoPlaceLeft() {
        assertThat(queueLength()).as("places in the wait queue once the wait is over").isZero();
        assertThat(holder.redis.opsForZSet().size(keys.waitDeadlines())).as("deadlines of queued places").isZero();
    }

    private long queueLength() {
        Long length = holder.redis.opsForList().size(keys.waitQueue());
        return length == null ? 0 : length;
    }
}
