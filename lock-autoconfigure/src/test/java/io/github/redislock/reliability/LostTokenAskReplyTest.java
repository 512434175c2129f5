package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostException;
import io.github.redislock.LockRedisException;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A holder's ask for its fencing token ({@code token.lua}) whose reply is lost after the script ran: Redis drew a token the
 * holder never learnt. The hold stays usable: the next ask draws again, inside the same hold, above everything drawn before;
 * and once the hold ended and another owner drew its token, the next ask is a {@link LockLostException}, never a token
 * below the later holder's. On Lettuce, which keeps the connection, and on Jedis, which breaks it.
 */
class LostTokenAskReplyTest {

    private static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(3);

    private final RedisServerProcess redis = TestRedis.shared();
    private final String key = "lost-token-ask-" + UUID.randomUUID();
    private final FaultProxy proxy = new FaultProxy(redis.port());
    private final LockerFixture other = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
    private LockerFixture asking;

    @AfterEach
    void close() {
        proxy.heal();
        try {
            asking.close();
            other.close();
        } finally {
            proxy.close();
        }
    }

    @Test
    void aHoldWhoseTokenAskReplyWasLostDrawsAHigherTokenAtTheNextAskAndStaysUsable() {
        asking = LockerFixture.connect("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
        assertTheNextAskDrawsAboveTheLostOne();
    }

    @Test
    void aHoldOnJedisWhoseTokenAskReplyWasLostDrawsAHigherTokenAtTheNextAskAndStaysUsable() {
        asking = LockerFixture.connectJedis("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
        assertTheNextAskDrawsAboveTheLostOne();
    }

    @Test
    void anAskAfterALostAskAndTheHoldsEndIsALossNotATokenBelowTheNextHolders() throws InterruptedException {
        asking = LockerFixture.connect("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
        assertTheAskAfterTheHoldsEndIsALoss();
    }

    @Test
    void anAskOnJedisAfterALostAskAndTheHoldsEndIsALossNotATokenBelowTheNextHolders() throws InterruptedException {
        asking = LockerFixture.connectJedis("127.0.0.1", proxy.port(), WATCHDOG_TIMEOUT, Duration.ofMillis(500));
        assertTheAskAfterTheHoldsEndIsALoss();
    }

    private void assertTheNextAskDrawsAboveTheLostOne() {
        warmUp();
        asking.locker.lock(key); // the everyday acquisition: no token drawn
        long before = redisClockMicros();
        askWithALostReply();

        long drawn = asking.locker.fencingToken(key);
        assertThat(drawn).as("the token of the ask after the lost one: above the Redis clock before the lost ask").isGreaterThan(before);
        assertThat(asking.locker.fencingToken(key)).as("asked again: the token kept").isEqualTo(drawn);
        asking.locker.unlock(key);
        assertThat(asking.locker.heldLockCount()).isZero();
        assertThat(asking.locker.watchdogState().watchedCount()).isZero();

        other.locker.lock(key);
        assertThat(other.locker.fencingToken(key)).as("the next holder's token").isGreaterThan(drawn);
        other.locker.unlock(key);
        assertThat(redis.command("EXISTS", asking.redisKey(key))).isEqualTo(0L);
        assertThat(asking.lostEvents).isEmpty();
    }

    private void assertTheAskAfterTheHoldsEndIsALoss() throws InterruptedException {
        warmUp();
        assertThat(asking.locker.tryLock(key, 0, 1, TimeUnit.SECONDS)).isTrue(); // a lease nobody renews
        askWithALostReply();
        await().atMost(Duration.ofSeconds(5)).until(() -> !other.locker.isLocked(key));
        other.locker.lock(key);
        long later = other.locker.fencingToken(key);

        assertThat(catchThrowable(() -> asking.locker.fencingToken(key))).as("the ask of the ended hold")
                .isInstanceOf(LockLostException.class).hasMessageContaining("'" + key + "'");
        other.locker.unlock(key);
        assertThat(later).isPositive();
        assertThat(redis.command("EXISTS", asking.redisKey(key))).isEqualTo(0L);
    }

    /** Loads token.lua into Redis and opens the asking instance's connections: the lost reply below is the script's, not a NOSCRIPT's. */
    private void warmUp() {
        asking.locker.lock(key + "-warm-up");
        asking.locker.fencingToken(key + "-warm-up");
        asking.locker.unlock(key + "-warm-up");
    }

    /** The ask runs in Redis; its reply comes after the 500 ms command timeout (only replies are slowed: Jedis breaks the connection). */
    private void askWithALostReply() {
        long clockReads = redis.commandCount("time");
        proxy.delayReplies(700);
        assertThat(catchThrowable(() -> asking.locker.fencingToken(key))).isInstanceOf(LockRedisException.class)
                .hasMessageContaining(asking.redisKey(key));
        proxy.heal();
        assertThat(redis.commandCount("time")).as("TIME calls: the lost ask drew a token in Redis").isGreaterThan(clockReads);
    }

    private long redisClockMicros() {
        @SuppressWarnings("unchecked")
        List<Object> clock = (List<Object>) redis.command("TIME");
        return Long.parseLong(String.valueOf(clock.get(0))) * 1_000_000 + Long.parseLong(String.valueOf(clock.get(1)));
    }
}
