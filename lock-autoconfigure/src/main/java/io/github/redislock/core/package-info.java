/**
 * The lockers on Redis: {@link io.github.redislock.core.RedisLocker} (one Redis, Sentinel or Cluster),
 * {@link io.github.redislock.core.RedlockLocker} (independent masters), and the thread-free
 * {@link io.github.redislock.core.RedisAsyncLocker} and {@link io.github.redislock.core.RedisReactiveLocker}.
 *
 * <p>The parts they are made of live in internal sub-packages by role, public only for one another and with
 * no compatibility promise; {@code LayeringTest} checks that no API exposes them and none depends on the lockers.
 */
package io.github.redislock.core;
