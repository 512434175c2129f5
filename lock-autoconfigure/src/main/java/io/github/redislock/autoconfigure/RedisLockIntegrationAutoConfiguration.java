package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.function.Function;

import io.github.redislock.Locker;
import io.github.redislock.integration.LockerLockRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * With Spring Integration on the classpath, its {@link LockRegistry} on our locks: aggregators, idempotent
 * receivers, message stores and {@code LockRegistryLeaderInitiator} then lock through the Locker. A key
 * named under {@code redis-lock.leader.roles} gets its role's leadership lease, other keys
 * {@code redis-lock.integration.lease} (by default the Locker's watchdog timeout). Backs off when the
 * application defines a LockRegistry of its own. A Redlock Locker ({@code redis-lock.redlock.nodes})
 * fails startup here: it gives no fencing tokens, which the registry's locks need.
 */
@AutoConfiguration(after = {RedisLockAutoConfiguration.class, RedisLockRedlockAutoConfiguration.class, RedisLockLeaderAutoConfiguration.class})
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(Locker.class)
@EnableConfigurationProperties({RedisLockIntegrationProperties.class, RedisLockLeaderProperties.class})
public class RedisLockIntegrationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    LockerLockRegistry lockRegistry(Locker locker, ObjectProvider<LeaseLockers> leaseLockers, RedisLockIntegrationProperties properties,
                                    RedisLockLeaderProperties leader) {
        LeaseLockers leases = leaseLockers.getIfAvailable();
        Duration lease = properties.getLease();
        if (leases == null) {
            if (lease != null || !leader.getRoles().isEmpty()) {
                throw new IllegalStateException("redis-lock.integration.lease and redis-lock.leader.roles need the Locker on one Redis, "
                        + "not on Redlock's masters or an application's own Locker: unset them");
            }
            return new LockerLockRegistry(locker);
        }
        Function<String, Locker> lockers = key -> leader.getRoles().containsKey(key) ? leases.forLease(leader.leaseOf(key))
                : lease == null ? locker : leases.forLease(lease);
        return new LockerLockRegistry(lockers);
    }
}
