package io.github.redislock.integration;

import io.github.redislock.RedisLock;

import org.springframework.integration.support.locks.DistributedLock;

/**
 * A lock of {@link LockerLockRegistry} where Spring Integration 7's {@link DistributedLock} exists (the
 * Spring Boot 4 line): both our {@link RedisLock} (fencing token, hold count) and the registry lock
 * Spring Integration's own Redis and JDBC registries return, with a time to live per use.
 *
 * <p>The time to live of {@link #lock(java.time.Duration)} and {@link #tryLock(java.time.Duration, java.time.Duration)}
 * is a lease of ours: Redis frees the lock that long after it was taken unless it is unlocked before, the
 * watchdog does not renew it, and an unlock after it ran out throws {@link io.github.redislock.LockLostException}.
 * On Spring Integration 6.5 (Boot 3.5) this type does not load; the registry's locks are plain {@link RedisLock}s there.
 */
public interface DistributedRedisLock extends RedisLock, DistributedLock {
}
