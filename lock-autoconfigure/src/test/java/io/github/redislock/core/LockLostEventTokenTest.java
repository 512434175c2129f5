package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisMultiLock;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link LockLostEvent} names the fencing token of the hold that was lost, whatever kind of hold it
 * was: the token its holder was given, never 0 (which means "unknown") on a Locker that gives tokens.
 */
class LockLostEventTokenTest {

    private LockerFixture fixture;
    private String key;

    @BeforeEach
    void connect() {
        fixture = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(3));
        key = "lost-token-" + UUID.randomUUID();
    }

    @AfterEach
    void disconnect() {
        fixture.close();
    }

    @Test
    void thePlainLocksLossNamesItsToken() {
        lostHoldNamesItsToken(fixture.locker.getLock(key));
    }

    @Test
    void theFairLocksLossNamesItsToken() {
        lostHoldNamesItsToken(fixture.locker.getFairLock(key));
    }

    @Test
    void theReadLocksLossNamesItsToken() {
        lostHoldNamesItsToken(fixture.locker.getReadWriteLock(key).readLock());
    }

    @Test
    void theWriteLocksLossNamesItsToken() {
        lostHoldNamesItsToken(fixture.locker.getReadWriteLock(key).writeLock());
    }

    @Test
    void eachKeyOfALostMultiLockNamesItsOwnToken() {
        RedisMultiLock multi = fixture.locker.getMultiLock(key + "-a", key + "-b");
        multi.lock();
        Map<String, Long> tokens = Map.of(key + "-a", multi.fencingToken(key + "-a"), key + "-b", multi.fencingToken(key + "-b"));

        loseEveryHold();
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.lostEvents.size() == 2);

        assertThat(fixture.lostEvents.stream().collect(Collectors.toMap(LockLostEvent::getKey, LockLostEvent::getFencingToken)))
                .isEqualTo(tokens).doesNotContainValue(0L);
        assertThatExceptionOfType(LockLostException.class).isThrownBy(multi::unlock);
    }

    private void lostHoldNamesItsToken(RedisLock lock) {
        lock.lock();
        long token = lock.fencingToken();

        loseEveryHold();
        await().atMost(Duration.ofSeconds(5)).until(() -> !fixture.lostEvents.isEmpty());

        assertThat(fixture.lostEvents).singleElement().satisfies(lost -> {
            assertThat(lost.getKey()).isEqualTo(key);
            assertThat(lost.getFencingToken()).isNotZero().isEqualTo(token);
        });
        assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock);
    }

    /** Deletes every Redis key of the test's locks, then lets the watchdog look at once. */
    private void loseEveryHold() {
        fixture.redis.delete(fixture.redis.keys("*" + key + "*"));
        fixture.watchdog.renewNow();
    }
}
