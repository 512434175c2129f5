package io.github.redislock.reliability;

import java.time.Duration;

import io.github.redislock.core.LockerFixture;

/**
 * {@link AsyncCancellationTest} with a waiter whose connection factory is Jedis's: its script calls wait on
 * redis-lock-blocking-call threads and its pub/sub runs on a thread of its own, so a held-back grant or
 * hand-off reaches the cancelled acquisition along other paths than Lettuce's.
 */
class JedisAsyncCancellationTest extends AsyncCancellationTest {

    @Override
    LockerFixture connectWaiter(int port) {
        return LockerFixture.connectJedis("127.0.0.1", port, WAITER_WATCHDOG_TIMEOUT, Duration.ofSeconds(10));
    }
}
