package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.RedisLock;
import io.github.redislock.LockLostException;
import io.github.redislock.FencingTokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** Every first acquisition draws a token larger than any before it for that key, whoever takes it. */
class FencingTokenTest extends TwoInstances {

    @Test
    void tokensStrictlyIncreaseAcrossInstancesAndLeaseExpiries() throws Exception {
        List<Long> tokens = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            for (LockerFixture instance : List.of(first, second)) {
                instance.locker.lock(key);
                tokens.add(instance.locker.fencingToken(key));
                instance.locker.unlock(key);
            }
            // a holder that never unlocks: the next one gets the lock when the lease ends, and a higher token
            assertThat(first.locker.tryLock(key, 0, 200, TimeUnit.MILLISECONDS)).isTrue();
            tokens.add(first.locker.fencingToken(key));
            assertThat(second.locker.tryLock(key, 5, -1, TimeUnit.SECONDS)).isTrue();
            tokens.add(second.locker.fencingToken(key));
            second.locker.unlock(key);
            assertThatThrownBy(() -> first.locker.unlock(key)).isInstanceOf(LockLostException.class);
        }
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d of %s", i, tokens).isGreaterThan(tokens.get(i - 1));
        }
    }

    @Test
    void aReentrantAcquisitionKeepsTheTokenOfTheHoldItEnters() {
        RedisLock lock = first.locker.getLock(key);
        lock.lock();
        long token = lock.fencingToken();
        lock.lock();
        assertThat(lock.fencingToken()).isEqualTo(token);
        assertThat(FencingTokens.current(key)).isEqualTo(token);
        lock.unlock();
        assertThat(FencingTokens.current(key)).as("still held once").isEqualTo(token);
        lock.unlock();

        assertThatThrownBy(lock::fencingToken).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(key);
        assertThatThrownBy(() -> FencingTokens.current(key)).isInstanceOf(IllegalStateException.class).hasMessageContaining(key);
        lock.lock();
        assertThat(lock.fencingToken()).isGreaterThan(token);
        lock.unlock();
    }

    @Test
    void twoInstancesHoldingOneKeyOnOneThreadGiveTheLatestTokenThenTheEarlierOne() {
        RedisLock mine = first.locker.getReadWriteLock(key).readLock();
        RedisLock theirs = second.locker.getReadWriteLock(key).readLock();
        mine.lock();
        theirs.lock();
        assertThat(FencingTokens.current(key)).as("the latest acquisition's").isEqualTo(theirs.fencingToken());
        theirs.unlock();
        assertThat(FencingTokens.current(key)).as("the one still held").isEqualTo(mine.fencingToken());
        theirs.lock();
        mine.unlock();
        assertThat(FencingTokens.current(key)).isEqualTo(theirs.fencingToken());
        theirs.unlock();
        assertThatThrownBy(() -> FencingTokens.current(key)).isInstanceOf(IllegalStateException.class).hasMessageContaining(key);
    }

    @Test
    void aHolderPausedPastItsLeaseIsRejectedByATokenCheckingResource() throws Exception {
        FencedStore store = new FencedStore();
        assertThat(first.locker.tryLock(key, 0, 300, TimeUnit.MILLISECONDS)).isTrue();
        long pausedToken = first.locker.fencingToken(key);
        // the first holder now "pauses" (a GC pause, a stalled VM): its lease ends meanwhile
        assertThat(second.locker.tryLock(key, 5, -1, TimeUnit.SECONDS)).isTrue();
        long newToken = second.locker.fencingToken(key);
        assertThat(store.write(newToken, "written by the second holder")).isTrue();
        second.locker.unlock(key);

        // the paused holder wakes up, still believing it holds the lock
        assertThat(store.write(pausedToken, "stale write")).isFalse();
        assertThat(store.value).isEqualTo("written by the second holder");
        assertThatThrownBy(() -> first.locker.unlock(key)).isInstanceOf(LockLostException.class);
    }

    @Test
    void aClosedLockerRefusesTheTokenOfAHoldTakenBeforeTheCloseInsteadOfDrawingOneFromRedis() {
        first.locker.lock(key); // a plain lock's acquisition draws no token: the first ask would
        first.locker.close();

        assertThatThrownBy(() -> FencingTokens.current(key)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Locker is closed").hasMessageContaining("'" + key + "'");
    }

    @Test
    void aPlainLocksTokenNeedsNoKeyOfItsOwnAndNothingStaysAfterTheRelease() {
        first.locker.lock(key);
        String hash = first.redisKey(key);
        assertThat(first.redis.keys("*" + hash + "*")).as("keys of the held lock").containsExactly(hash);
        assertThat(first.redis.opsForHash().keys(hash)).as("fields of the held lock")
                .containsExactly(first.locker.getClientId() + ":" + Thread.currentThread().getId());
        first.locker.unlock(key);
        assertThat(first.redis.keys("*" + hash + "*")).as("keys left after the release").isEmpty();
    }

    @Test
    void aHandOffGivesTheTokenAboveTheReleasingOwnersEvenWhenThatOneIsAheadOfTheRedisClock() throws Exception {
        // A waiter that comes back to Redis on its own only every 3.3 s: only the hand-off can make it the owner here.
        try (LockerFixture patient = LockerFixture.connect(io.github.redislock.testsupport.TestRedis.shared().host(),
                io.github.redislock.testsupport.TestRedis.shared().port(), LockerFixture.SLOW_RETRIES)) {
            first.locker.lock(key);
            java.util.concurrent.CompletableFuture<Long> handedOver = new java.util.concurrent.CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                patient.locker.lock(key);
                handedOver.complete(patient.locker.fencingToken(key));
                patient.locker.unlock(key);
            });
            waiter.start();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> patient.subscriptions.waiterCount() == 1
                    && first.redis.opsForList().size(LockKeys.of(LockerFixture.PREFIX, key).waitQueue()) == 1);
            // The releasing owner's token an hour ahead of the Redis clock, as after a clock step back: the next one must still be higher.
            long ahead = first.locker.fencingToken(key) + TimeUnit.HOURS.toMicros(1);
            assertThat(first.commands.await(first.commands.releaseAsync(List.of(LockKeys.of(LockerFixture.PREFIX, key)),
                    first.locker.getClientId() + ":" + Thread.currentThread().getId(), new long[] {1000}, new long[] {ahead}, null, false))[0]).isZero();
            assertThat(handedOver.get(5, TimeUnit.SECONDS)).isEqualTo(ahead + 1);
            waiter.join(5000);
            assertThatThrownBy(() -> first.locker.unlock(key)).as("the hold went with the release above").isInstanceOf(LockLostException.class);
        }
    }

    @Test
    void aNewCounterStartsFromTheRedisClockInMicroseconds() {
        List<?> time = (List<?>) io.github.redislock.testsupport.TestRedis.shared().command("TIME");
        long redisMicros = Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
        first.locker.lock(key);
        long token = first.locker.fencingToken(key);
        first.locker.unlock(key);
        assertThat(token).isBetween(redisMicros, redisMicros + TimeUnit.SECONDS.toMicros(5));
    }

    /** A resource that protects itself with fencing tokens: a write with a token lower than one it has seen is refused. */
    static final class FencedStore {
        private long highestToken;
        String value;

        synchronized boolean write(long token, String newValue) {
            if (token < highestToken) {
                return false;
            }
            highestToken = token;
            value = newValue;
            return true;
        }
    }
}
