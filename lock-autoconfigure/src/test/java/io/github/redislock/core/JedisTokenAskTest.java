package io.github.redislock.core;

import io.github.redislock.testsupport.TestRedis;

/** {@link TokenAskTest} on Jedis: the ask's reply and the lost hold's -1 read the same. */
class JedisTokenAskTest extends TokenAskTest {

    @Override
    LockerFixture connect() {
        return LockerFixture.connectJedis(TestRedis.shared().host(), TestRedis.shared().port(), WATCHDOG_TIMEOUT);
    }
}
