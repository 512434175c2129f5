package io.github.redislock.autoconfigure;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis the locks live on: the application's {@code RedisConnectionFactory}, or a dedicated one
 * built from {@code redis-lock.redis.*}. A holder rather than a second {@code RedisConnectionFactory}
 * bean: a second bean of that type would make Spring Boot's own Redis beans (templates, health,
 * repositories) ambiguous, or make Boot back off from creating the application's factory at all.
 */
final class LockRedis implements DisposableBean {

    private final RedisConnectionFactory connectionFactory;
    private final boolean dedicated;

    private LockRedis(RedisConnectionFactory connectionFactory, boolean dedicated) {
        this.connectionFactory = connectionFactory;
        this.dedicated = dedicated;
    }

    /** How messages name this Redis, by the settings that lead to it. */
    String description() {
        return dedicated ? "the Redis of redis-lock.redis.*" : "the application's Redis (spring.data.redis.*)";
    }

    static LockRedis shared(RedisConnectionFactory application) {
        return new LockRedis(application, false);
    }

    static LockRedis dedicated(RedisLockProperties.Redis redis) {
        redis.check();
        return new LockRedis(LockConnectionFactories.dedicated(redis), true);
    }

    RedisConnectionFactory connectionFactory() {
        return connectionFactory;
    }

    /** Closes a dedicated factory; the application's stays the application's to close. */
    @Override
    public void destroy() {
        if (dedicated && connectionFactory instanceof LettuceConnectionFactory lettuce) {
            lettuce.destroy();
        }
    }
}
