/**
 * Spring Integration on our locks: {@link io.github.redislock.integration.LockerLockRegistry}, a
 * {@code LockRegistry} whose locks are a {@link io.github.redislock.Locker}'s, for aggregators, idempotent
 * receivers, message stores and {@code LockRegistryLeaderInitiator}. Used only when
 * {@code spring-integration-core} is on the classpath. On Spring Integration 7 its locks are also
 * {@code DistributedLock}s ({@link io.github.redislock.integration.DistributedRedisLock}), with a time to
 * live per use that is a lease of ours.
 */
package io.github.redislock.integration;
