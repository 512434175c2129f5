/**
 * The lockers on Redis: {@link io.github.redislock.core.RedisLocker} (one Redis, Sentinel or Cluster) and
 * {@link io.github.redislock.core.RedlockLocker} (independent masters), the thread-free
 * {@link io.github.redislock.core.RedisAsyncLocker} and {@link io.github.redislock.core.RedisReactiveLocker}
 * over a RedisLocker, the operator's {@link io.github.redislock.core.LockAdmin} and the read-only
 * {@link io.github.redislock.core.WatchdogState}.
 *
 * <p>Only those named public here are meant for applications. The parts they are made of live in internal
 * sub-packages by role, whose types are public only for one another and carry no compatibility promise:
 * <ul>
 * <li>{@link io.github.redislock.core.script}: the {@code .lua} scripts, what each call sends and how its
 *     reply reads, the transport, the batched lease renewal, the names of keys and channels;</li>
 * <li>{@link io.github.redislock.core.renewal}: the batched watchdog;</li>
 * <li>{@link io.github.redislock.core.pubsub}: release subscriptions (classic or sharded) and queued hand-off;</li>
 * <li>{@link io.github.redislock.core.hold}: holds, their registry, release and lost-lock events;</li>
 * <li>{@link io.github.redislock.core.wait}: the one wait state machine, parked or on an executor, and the
 *     per-kind attempts;</li>
 * <li>{@link io.github.redislock.core.redlock}: the fan-out over independent masters;</li>
 * <li>{@link io.github.redislock.core.bench}: the seam the {@code lock-benchmarks} module measures through.</li>
 * </ul>
 * An architecture test ({@code LayeringTest}) checks that no API package and no public member of the
 * auto-configuration exposes an internal type, and that no sub-package depends on the lockers here.
 */
package io.github.redislock.core;
