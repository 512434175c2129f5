package io.github.redislock.core;

import io.github.redislock.testsupport.TestRedis;

/**
 * {@link AsyncLockerTest} (cancelled and timed-out waits, hand-offs between handles and threads, close) on two
 * instances whose connection factory is Jedis's, whose calls block a thread each.
 */
class JedisAsyncLockerTest extends AsyncLockerTest {

    @Override
    LockerFixture connect() {
        return LockerFixture.connectJedis(TestRedis.shared().host(), TestRedis.shared().port(), WATCHDOG_TIMEOUT);
    }
}
