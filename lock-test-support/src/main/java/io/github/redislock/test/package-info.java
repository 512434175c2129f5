/**
 * For applications' own tests: {@link io.github.redislock.test.WithRedisServer} gives a test class a
 * real {@code redis-server} and points {@code spring.data.redis.*} of its Spring test context at it;
 * {@link io.github.redislock.test.RunningRedisServer} is that server, injectable as a test parameter.
 * Everything else here is package-private.
 */
package io.github.redislock.test;
