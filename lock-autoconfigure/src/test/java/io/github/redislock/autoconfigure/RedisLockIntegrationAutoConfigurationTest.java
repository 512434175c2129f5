package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redislock.Locker;
import io.github.redislock.RedisLock;
import io.github.redislock.integration.LockerLockRegistry;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.util.ClassUtils;

class RedisLockIntegrationAutoConfigurationTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class, RedisLockLeaderAutoConfiguration.class,
                    RedisLockIntegrationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void theLockRegistryLocksOnTheLockersLocks() {
        contextRunner.run(context -> {
            assertThat(context).hasSingleBean(LockRegistry.class).getBean(LockRegistry.class).isInstanceOf(LockerLockRegistry.class);
            String key = "integration-" + UUID.randomUUID();
            Lock lock = context.getBean(LockRegistry.class).obtain(key);
            lock.lock();
            try {
                assertThat(context.getBean(Locker.class).getHoldCount(key)).as("the same hold, seen through the Locker").isEqualTo(1);
            } finally {
                lock.unlock();
            }
            assertThat(context.getBean(Locker.class).isLocked(key)).isFalse();
        });
    }

    @Test
    void theRegistrysLocksAreDistributedLocksExactlyWhereSpringIntegrationHasThatType() {
        String distributedLock = "org.springframework.integration.support.locks.DistributedLock";
        boolean springIntegration7 = ClassUtils.isPresent(distributedLock, getClass().getClassLoader());
        contextRunner.run(context -> {
            Lock lock = context.getBean(LockRegistry.class).obtain("integration-" + UUID.randomUUID());
            assertThat(lock).isInstanceOf(RedisLock.class);
            if (springIntegration7) { // Boot 4
                assertThat(ClassUtils.resolveClassName(distributedLock, getClass().getClassLoader()).isInstance(lock)).as("a DistributedLock").isTrue();
            } else { // Boot 3.5: the same registry class, its locks loaded without the missing type
                assertThat(lock.getClass().getSimpleName()).isEqualTo("RegistryLock");
            }
        });
    }

    @Test
    void withoutSpringIntegrationThereIsNoRegistryAndNothingElseChanges() {
        contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.integration"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockerLockRegistry.class).hasSingleBean(Locker.class));
    }

    @Test
    void anApplicationsOwnRegistryWins() {
        contextRunner.withUserConfiguration(OwnRegistry.class)
                .run(context -> assertThat(context).hasSingleBean(LockRegistry.class).doesNotHaveBean(LockerLockRegistry.class));
    }

    @Test
    void aRoleKeyLivesForItsLeadershipLeaseAndOtherKeysForTheIntegrationLease() {
        contextRunner.withPropertyValues("redis-lock.integration.lease=5s", "redis-lock.leader.roles.orders-poller.lease=2s").run(context -> {
            LockRegistry registry = context.getBean(LockRegistry.class);
            StringRedisTemplate redis = new StringRedisTemplate(context.getBean(org.springframework.data.redis.connection.RedisConnectionFactory.class));
            String other = "integration-" + UUID.randomUUID();
            assertThat(leaseOf(registry, redis, "orders-poller")).isBetween(1000L, 2000L);
            assertThat(leaseOf(registry, redis, other)).isBetween(4000L, 5000L);
        });
    }

    @Test
    void aMisspeltSettingFailsStartupNamingIt() {
        contextRunner.withPropertyValues("redis-lock.integration.leese=5s")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("redis-lock.integration.leese"));
    }

    @Test
    void aLeaseTooShortFailsStartupNamingTheProperty() {
        contextRunner.withPropertyValues("redis-lock.integration.lease=10ms")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("redis-lock.integration.lease"));
    }

    private static long leaseOf(LockRegistry registry, StringRedisTemplate redis, String key) {
        Lock lock = registry.obtain(key);
        lock.lock();
        try {
            return redis.getExpire("lock:" + key, TimeUnit.MILLISECONDS);
        } finally {
            lock.unlock();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistry {

        @Bean
        LockRegistry ownLockRegistry() {
            return new DefaultLockRegistry();
        }
    }
}
