/**
 * The lockers on Redis: {@link io.github.redislock.core.RedisLocker} (one Redis, Sentinel or Cluster) and
 * {@link io.github.redislock.core.RedlockLocker} (independent masters), the thread-free
 * {@link io.github.redislock.core.RedisAsyncLocker} and {@link io.github.redislock.core.RedisReactiveLocker}
 * over a RedisLocker, the operator's {@link io.github.redislock.core.LockAdmin} and the read-only
 * {@link io.github.redislock.core.WatchdogState}.
 *
 * <p>Only those named public here are meant for applications. The parts they are made of live in internal
 * sub-packages by role ({@code script}, {@code renewal}, {@code pubsub}, {@code hold}, {@code wait},
 * {@code redlock}, and {@code bench} for the benchmarks), each described by its package-info; their types
 * are public only for one another and carry no compatibility promise.
 * An architecture test ({@code LayeringTest}) checks that no API package and no public member of the
 * auto-configuration exposes an internal type, and that no sub-package depends on the lockers here.
 */
package io.github.redislock.core;
