package io.github.redislock.core;

/**
 * The lock's behaviour on an application whose connection factory is a {@code JedisConnectionFactory},
 * Spring Boot's other Redis client: Jedis subscribes only synchronously, and its subscribe runs the
 * read loop on the calling thread for as long as the subscription lives.
 */
class JedisLockerTest extends LockerTest {

    @Override
    LockerFixture connect() {
        return LockerFixture.connectJedis(redisHost(), redisPort(), WATCHDOG_TIMEOUT);
    }
}
