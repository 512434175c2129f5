package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.function.Function;

import io.github.redislock.Locker;
import io.github.redislock.RedisLock;
import io.github.redislock.integration.DistributedRedisLock;
import io.github.redislock.integration.LockerLockRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * With Spring Integration on the classpath, its {@link LockRegistry} on our locks: aggregators, idempotent
 * receivers, message stores and {@code LockRegistryLeaderInitiator} then lock through the Locker. A key
 * named under {@code redis-lock.leader.roles} gets its role's leadership lease, other keys
 * {@code redis-lock.integration.lease} (by default the Locker's watchdog timeout). Backs off when the
 * application defines a LockRegistry of its own. With a Redlock Locker ({@code redis-lock.redlock.nodes})
 * there is no registry bean: it gives no fencing tokens, which the registry's locks need, and an
 * application that merely has Spring Integration on its classpath must still start. One that builds a
 * {@link LockerLockRegistry} on it anyway is refused there, naming the property. On Spring Integration 7
 * the bean is a {@code LockerLockRegistry<DistributedRedisLock>}, on 6.5 a {@code LockerLockRegistry} of {@code RedisLock}s.
 */
@AutoConfiguration(after = {RedisLockAutoConfiguration.class, RedisLockRedlockAutoConfiguration.class, RedisLockLeaderAutoConfiguration.class})
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(Locker.class)
@Conditional(RedisLockRedlockAutoConfiguration.OnNoRedlockNodes.class)
@EnableConfigurationProperties({RedisLockIntegrationProperties.class, RedisLockLeaderProperties.class})
public class RedisLockIntegrationAutoConfiguration {

    private static final String DISTRIBUTED_LOCK = "org.springframework.integration.support.locks.DistributedLock";

    /** Spring Integration 7 (the Boot 4 line): the registry's locks are {@code DistributedLock}s too. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = DISTRIBUTED_LOCK)
    static class DistributedLocks {

        @Bean
        @ConditionalOnMissingBean(LockRegistry.class)
        LockerLockRegistry<DistributedRedisLock> lockRegistry(Locker locker, ObjectProvider<LeaseLockers> leaseLockers,
                                                              RedisLockIntegrationProperties properties, RedisLockLeaderProperties leader) {
            return registry(locker, leaseLockers.getIfAvailable(), properties, leader);
        }
    }

    /**
     * Spring Integration 6.5 (the Boot 3.5 line), which has no {@code DistributedLock}. The bean's type is
     * the raw class: its interface is generic only on Spring Integration 7, and reflecting on a type
     * argument of {@code RenewableLockRegistry} fails on 6.5 (as ahead-of-time processing does).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(DISTRIBUTED_LOCK)
    static class RedisLocks {

        @Bean
        @ConditionalOnMissingBean(LockRegistry.class)
        @SuppressWarnings("rawtypes")
        LockerLockRegistry lockRegistry(Locker locker, ObjectProvider<LeaseLockers> leaseLockers,
                                        RedisLockIntegrationProperties properties, RedisLockLeaderProperties leader) {
            return RedisLockIntegrationAutoConfiguration.<RedisLock>registry(locker, leaseLockers.getIfAvailable(), properties, leader);
        }
    }

    private static <L extends RedisLock> LockerLockRegistry<L> registry(Locker locker, LeaseLockers leases, RedisLockIntegrationProperties properties,
                                                                        RedisLockLeaderProperties leader) {
        Duration lease = properties.getLease();
        if (leases == null) {
            if (lease != null || !leader.getRoles().isEmpty()) {
                throw new IllegalStateException("redis-lock.integration.lease and redis-lock.leader.roles need the Locker on one Redis, "
                        + "not an application's own Locker: unset them");
            }
            return new LockerLockRegistry<>(locker);
        }
        Function<String, Locker> lockers = key -> leader.hasSettings(key) ? leases.forLease(leader.leaseOf(key))
                : lease == null ? locker : leases.forLease(lease);
        return new LockerLockRegistry<>(lockers);
    }
}
