package io.github.redislock.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Tells the user what to configure when redis-lock cannot find Redis. */
class MissingRedisConnectionFactoryFailureAnalyzer extends AbstractFailureAnalyzer<MissingRedisConnectionFactoryException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MissingRedisConnectionFactoryException cause) {
        return new FailureAnalysis(
                "redis-lock is enabled, but no RedisConnectionFactory bean exists, so there is no Redis to keep locks in.",
                "Add spring-boot-starter-data-redis (the redis-lock starter brings it) and point spring.data.redis.host/port, "
                        + "spring.data.redis.url, spring.data.redis.sentinel.* or spring.data.redis.cluster.nodes at your Redis; "
                        + "do not exclude Spring Boot's Redis auto-configuration (DataRedisAutoConfiguration on Boot 4, RedisAutoConfiguration on Boot 3), or define your own RedisConnectionFactory bean; "
                        + "or give the locks a Redis of their own with redis-lock.redis.url, redis-lock.redis.sentinel.* or redis-lock.redis.cluster.nodes, "
                        + "or independent Redlock masters with redis-lock.redlock.nodes (then no RedisConnectionFactory is needed). "
                        + "To run without distributed locks, set redis-lock.enabled=false.",
                cause);
    }
}
