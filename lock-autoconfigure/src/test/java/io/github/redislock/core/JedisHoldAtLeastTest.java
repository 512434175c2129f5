package io.github.redislock.core;

import io.github.redislock.testsupport.TestRedis;

/** {@link HoldAtLeastTest} (the scheduled job's shortest hold) on two instances whose connection factory is Jedis's. */
class JedisHoldAtLeastTest extends HoldAtLeastTest {

    @Override
    LockerFixture connect() {
        return LockerFixture.connectJedis(TestRedis.shared().host(), TestRedis.shared().port(), WATCHDOG_TIMEOUT);
    }
}
