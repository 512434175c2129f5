package io.github.redislock.core;

import io.github.redislock.testsupport.TestRedis;

/** The lock's behaviour on a redis-server process the tests start themselves. */
class LockerTest extends LockerContractTest {

    @Override
    String redisHost() {
        return TestRedis.shared().host();
    }

    @Override
    int redisPort() {
        return TestRedis.shared().port();
    }
}
