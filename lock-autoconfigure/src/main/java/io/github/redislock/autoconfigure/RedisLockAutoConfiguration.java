package io.github.redislock.autoconfigure;

import io.github.redislock.LockCommands;
import io.github.redislock.LockUtilBinding;
import io.github.redislock.LockObserver;
import io.github.redislock.Locker;
import io.github.redislock.RedisLocker;
import io.github.redislock.waiting.ReleaseSubscriptions;
import io.github.redislock.watchdog.LockWatchdog;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Distributed locks on the application's Redis: a {@link Locker}, its watchdog and its release
 * subscriptions. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(after = RedisAutoConfiguration.class)
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnProperty(prefix = "redis-lock", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public class RedisLockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockCommands lockCommands(ObjectProvider<RedisConnectionFactory> connectionFactory, RedisLockProperties properties) {
        return new LockCommands(requireConnectionFactory(connectionFactory), properties.getReplicaSync());
    }

    @Bean
    @ConditionalOnMissingBean
    LockWatchdog lockWatchdog(RedisLockProperties properties, LockCommands commands, ObjectProvider<LockObserver> observer) {
        return new LockWatchdog(properties.getWatchdogTimeout(), commands, observer.getIfAvailable(() -> LockObserver.NONE));
    }

    @Bean
    @ConditionalOnMissingBean
    ReleaseSubscriptions lockReleaseSubscriptions(ObjectProvider<RedisConnectionFactory> connectionFactory, RedisLockProperties properties) {
        return new ReleaseSubscriptions(requireConnectionFactory(connectionFactory), properties.getKeyPrefix() + "__anchor");
    }

    @Bean
    ReleaseSubscriptionsLifecycle lockReleaseSubscriptionsLifecycle(ReleaseSubscriptions subscriptions,
                                                                    ObjectProvider<RedisConnectionFactory> connectionFactory) {
        return new ReleaseSubscriptionsLifecycle(subscriptions, requireConnectionFactory(connectionFactory));
    }

    @Bean
    @ConditionalOnMissingBean(Locker.class)
    RedisLocker locker(LockCommands commands, LockWatchdog watchdog, ReleaseSubscriptions subscriptions,
                       RedisLockProperties properties, ApplicationEventPublisher events, ObjectProvider<LockObserver> observer) {
        return new RedisLocker(commands, watchdog, subscriptions, properties.getKeyPrefix(), events,
                observer.getIfAvailable(() -> LockObserver.NONE));
    }

    @Bean
    @ConditionalOnMissingBean
    LockUtilBinding lockUtilBinding(Locker locker) {
        return new LockUtilBinding(locker);
    }

    @Bean
    RedisServerVersionCheck lockRedisServerVersionCheck(ObjectProvider<RedisConnectionFactory> connectionFactory) {
        return new RedisServerVersionCheck(requireConnectionFactory(connectionFactory));
    }

    private static RedisConnectionFactory requireConnectionFactory(ObjectProvider<RedisConnectionFactory> connectionFactory) {
        RedisConnectionFactory factory = connectionFactory.getIfAvailable();
        if (factory == null) {
            throw new MissingRedisConnectionFactoryException();
        }
        return factory;
    }
}
