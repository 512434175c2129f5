package io.github.redislock.autoconfigure;

/** redis-lock is enabled but the context has no RedisConnectionFactory to talk to Redis with. */
class MissingRedisConnectionFactoryException extends IllegalStateException {

    MissingRedisConnectionFactoryException() {
        super("redis-lock needs a RedisConnectionFactory bean, and the application context has none");
    }
}
