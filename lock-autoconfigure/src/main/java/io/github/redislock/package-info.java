/**
 * The API of redis-lock: what application code uses and catches. The {@link io.github.redislock.Locker}
 * and its lock views ({@link io.github.redislock.RedisLock}, {@link io.github.redislock.RedisMultiLock},
 * {@link io.github.redislock.RedisReadWriteLock}), the thread-free {@link io.github.redislock.AsyncLocker}
 * and {@link io.github.redislock.ReactiveLocker} with their {@link io.github.redislock.LockHandle}, the exceptions and the {@link io.github.redislock.LockLostEvent},
 * the static {@link io.github.redislock.LockUtil} and {@link io.github.redislock.FencingTokens}, and the
 * {@link io.github.redislock.LockObserver} SPI that metrics and traces plug into.
 *
 * <p>Nothing here talks to Redis: the implementation lives in {@code io.github.redislock.core}, the
 * annotation in {@code io.github.redislock.annotation}, the Spring Boot wiring in
 * {@code io.github.redislock.autoconfigure}.
 */
package io.github.redislock;
