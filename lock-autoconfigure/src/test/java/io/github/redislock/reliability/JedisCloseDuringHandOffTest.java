package io.github.redislock.reliability;

import java.time.Duration;

import io.github.redislock.core.LockerFixture;

/**
 * {@link CloseDuringHandOffTest} with a closing instance on Jedis: its script calls wait on redis-lock-blocking-call threads
 * over pooled connections and its pub/sub runs on a thread of its own, so the hand-off message and the close's withdrawal
 * race along other paths than Lettuce's.
 */
class JedisCloseDuringHandOffTest extends CloseDuringHandOffTest {

    @Override
    LockerFixture connectClosing(int port) {
        return LockerFixture.connectJedis("127.0.0.1", port, LockerFixture.SLOW_RETRIES, Duration.ofSeconds(10));
    }
}
