/**
 * Spring Integration on our locks: {@link io.github.redislock.integration.LockerLockRegistry}, a
 * {@code LockRegistry} whose locks are a {@link io.github.redislock.Locker}'s, for aggregators, idempotent
 * receivers, message stores and {@code LockRegistryLeaderInitiator}. Used only when
 * {@code spring-integration-core} is on the classpath.
 */
package io.github.redislock.integration;
