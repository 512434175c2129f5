/**
 * The implementation of the locks on Redis: {@link io.github.redislock.core.RedisLocker} (one Redis,
 * Sentinel or Cluster, built with {@link io.github.redislock.core.RedisLockerBuilder}) and
 * {@link io.github.redislock.core.RedlockLocker} (several independent masters), the thread-free
 * {@link io.github.redislock.core.RedisAsyncLocker} and {@link io.github.redislock.core.RedisReactiveLocker}
 * over a RedisLocker, with their lock
 * protocol (the {@code .lua} scripts beside these classes in the resources), the batched watchdog and
 * the pub/sub waiting with its queued hand-off.
 *
 * <p>Only these Lockers, the builder, the operator's {@link io.github.redislock.core.LockAdmin} and the
 * read-only {@link io.github.redislock.core.WatchdogState} are public; script calls, holds, waits, renewal
 * and subscriptions are package-private, so they can change without breaking anyone. The benchmarks'
 * measuring hooks ({@code CeilingCalls}, {@code LockInternals}, {@code LockClientProbe}) reach them from
 * this package's name in the {@code lock-benchmarks} module, and are no part of the library.
 */
package io.github.redislock.core;
