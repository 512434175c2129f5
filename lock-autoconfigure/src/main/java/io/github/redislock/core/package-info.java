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
 *
 * <p>One package, so that those parts stay package-private; a reader finds them by role:
 * <ul>
 * <li>lockers: {@code RedisLocker}, {@code RedisAsyncLocker}, {@code RedisReactiveLocker}, {@code RedlockLocker}
 *     (a {@code RedisLocker} on {@code RedlockQuorum}, with {@code RedlockMasters},
 *     {@code RedlockRenewal}), their shared {@code AbstractLocker}, the views
 *     {@code LockView}, {@code MultiLockView}, {@code Handle};</li>
 * <li>waiting: {@code LockWait} (the one state machine), run by {@code ParkedWait} or {@code ExecutorWait},
 *     trying the per-kind {@code LockAttempt}s of {@code LockAttempts}, with {@code OwnerTurns},
 *     {@code OutageRideOut} and the {@code WaitHost} it waits in;</li>
 * <li>holds: {@code Hold}, {@code HeldLocks}, {@code HoldReleases}, {@code HoldAtLeast}, {@code LostLockEvents};</li>
 * <li>scripts: {@code LockScript} (the {@code .lua} files), {@code LockCommands} (what each call sends and how
 *     its reply reads), {@code ScriptTransport}, {@code LockKeys}, {@code LockKind}, {@code LockTimes};</li>
 * <li>pub/sub: {@code ReleaseSubscriptions}, {@code ReleaseChannel}, {@code Waiting}, {@code HandOffInbox},
 *     {@code ChannelSubscriber} and its classic and sharded kinds, {@code ShardedChannels};</li>
 * <li>renewal: {@code LockWatchdog}, {@code LeaseRenewals}, {@code RenewalClient}, {@code WatchedLock},
 *     {@code WatchdogState}, {@code PartialRenewalException};</li>
 * <li>operations: {@code LockAdmin}, and {@code LockScriptRuntimeHints} for native images.</li>
 * </ul>
 */
package io.github.redislock.core;
