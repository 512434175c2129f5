package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.redislock.LockUtilBinding;
import io.github.redislock.LockObserver;
import io.github.redislock.Locker;
import io.github.redislock.core.RedisAsyncLocker;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.RedisLockerBuilder;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Distributed locks on the application's Redis, or on a Redis of their own ({@code redis-lock.redis.*}):
 * a {@link Locker}, which owns its watchdog and its release subscriptions. The Locker backs off when
 * the application defines its own. With {@code redis-lock.redlock.nodes} the Locker is the Redlock one
 * ({@link RedisLockRedlockAutoConfiguration}) and neither the application's Redis nor
 * {@code redis-lock.redis.*} is used: nothing here then asks for a {@code RedisConnectionFactory}.
 *
 * <p>Ordered after Spring Boot's Redis auto-configuration by name, because its class differs between
 * the Boot lines this library runs on (4.x first, 3.5 second).
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"})
@ConditionalOnClass(RedisConnectionFactory.class)
@Conditional(RedisLockAutoConfiguration.OnEnabled.class)
@EnableConfigurationProperties(RedisLockProperties.class)
public class RedisLockAutoConfiguration {

    /** Refuses a {@code redis-lock.*} setting that has no effect, before anything connects to Redis. */
    @Bean
    RedisLockSettingsCheck redisLockSettingsCheck(Environment environment, RedisLockProperties properties) {
        return new RedisLockSettingsCheck(environment, properties);
    }

    @Bean
    @ConditionalOnMissingBean
    LockUtilBinding lockUtilBinding(Locker locker) {
        return new LockUtilBinding(locker);
    }

    /** A Locker's builder with the settings of {@code properties}: the Locker bean's, and the leadership leases' ({@link LeaseLockers}). */
    static RedisLockerBuilder builder(LockRedis redis, RedisLockProperties properties, ApplicationEventPublisher events,
                                      ObjectProvider<LockObserver> observer) {
        return RedisLocker.builder(redis.connectionFactory())
                .keyPrefix(properties.getKeyPrefix())
                .watchdogTimeout(properties.getWatchdogTimeout())
                .replicaSync(properties.getReplicaSync())
                .callerConnections(properties.isCallerConnections())
                .events(events)
                .observer(observer.getIfAvailable(() -> LockObserver.NONE));
    }

    /** The one Redis of the locks and the Locker over it: every mode but Redlock. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(RedisLockRedlockAutoConfiguration.OnNoRedlockNodes.class)
    static class OneRedis {

        /** @param settings checked first: a setting without effect stops startup before any connection */
        @Bean
        LockRedis lockRedis(ObjectProvider<RedisConnectionFactory> connectionFactory, RedisLockProperties properties,
                            RedisLockSettingsCheck settings) {
            boolean dedicated = LockRedisMode.of(properties) != LockRedisMode.APPLICATION;
            RedisConnectionFactory application = dedicated ? null : requireConnectionFactory(connectionFactory);
            checkReplicaSync(properties, application);
            return dedicated ? LockRedis.dedicated(properties.getRedis()) : LockRedis.shared(application);
        }

        /**
         * Refuses a {@code redis-lock.replica-sync} that the locks' Redis client cannot keep, at startup rather than
         * at every first acquisition: on Jedis, which cannot send Redis's WAIT on the connection that took the lock,
         * on a Cluster, where WAIT (a command without a key) goes to the client's default node, not to the lock's
         * master, and at or beyond the client's command timeout, which ends the WAIT before the time set.
         *
         * @param application the application's factory, or null for the dedicated Redis of {@code redis-lock.redis.*}
         */
        private static void checkReplicaSync(RedisLockProperties properties, RedisConnectionFactory application) {
            Duration replicaSync = properties.getReplicaSync();
            if (replicaSync == null) {
                return;
            }
            if (application != null && !(application instanceof LettuceConnectionFactory)) {
                throw new InvalidConfigurationPropertyValueException("redis-lock.replica-sync", replicaSync,
                        "redis-lock.replica-sync needs Lettuce, which sends Redis's WAIT on the lock's own connection, but the application's"
                                + " Redis runs on " + application.getClass().getSimpleName() + ". Unset it, or use spring.data.redis.client-type=lettuce");
            }
            boolean ownCluster = LockRedisMode.of(properties) == LockRedisMode.CLUSTER;
            if (ownCluster || (application instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware())) {
                throw new InvalidConfigurationPropertyValueException("redis-lock.replica-sync", replicaSync, "redis-lock.replica-sync is not for a"
                        + " Redis Cluster (" + (ownCluster ? "redis-lock.redis.cluster.nodes" : "spring.data.redis.cluster.nodes") + "): Redis's"
                        + " WAIT names no key, so the cluster client sends it to one node, not to the lock's master, and it would count that"
                        + " node's replicas. Unset it: it is for a master with replicas behind Sentinels");
            }
            Duration timeout = application == null ? properties.getRedis().getTimeout()
                    : ((LettuceConnectionFactory) application).getClientConfiguration().getCommandTimeout();
            if (replicaSync.compareTo(timeout) >= 0) {
                throw new InvalidConfigurationPropertyValueException("redis-lock.replica-sync", replicaSync, "redis-lock.replica-sync ("
                        + replicaSync.toMillis() + "ms) must be shorter than the command timeout of the locks' Redis, "
                        + (application == null ? "redis-lock.redis.timeout" : "spring.data.redis.timeout") + " (" + timeout.toMillis()
                        + "ms): the client would give up on Redis's WAIT first, and fail the acquisition with a timeout");
            }
        }

        @Bean
        @ConditionalOnMissingBean(Locker.class)
        RedisLocker locker(LockRedis redis, RedisLockProperties properties, ApplicationEventPublisher events,
                           ObjectProvider<LockObserver> observer) {
            return builder(redis, properties, events, observer).build();
        }

        /** Closes the lockers, this one and the {@code AsyncLocker} over it, before the connection factory stops. */
        @Bean
        LockersLifecycle lockersLifecycle(ApplicationContext context, ObjectProvider<RedisLocker> lockers,
                                          ObjectProvider<RedisAsyncLocker> asyncLockers, LockRedis redis) {
            return new LockersLifecycle(context, lockers::orderedStream, asyncLockers::orderedStream, redis.connectionFactory(), 1);
        }

        @Bean
        RedisServerVersionCheck lockRedisServerVersionCheck(LockRedis redis) {
            return new RedisServerVersionCheck(Map.of(redis.description(), redis.connectionFactory()));
        }
    }

    private static RedisConnectionFactory requireConnectionFactory(ObjectProvider<RedisConnectionFactory> connectionFactory) {
        RedisConnectionFactory factory = connectionFactory.getIfAvailable();
        if (factory == null) {
            throw new MissingRedisConnectionFactoryException();
        }
        return factory;
    }

    /**
     * Matches unless {@code redis-lock.enabled} is {@code false}. Any value but true or false fails startup
     * naming the property: Spring Boot's own flags read it as off, which would leave an application whose
     * {@code on} or typo meant "on" running without its locks.
     */
    static class OnEnabled extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String value = context.getEnvironment().getProperty("redis-lock.enabled", "true").strip();
            if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                throw new InvalidConfigurationPropertyValueException("redis-lock.enabled", value,
                        "redis-lock.enabled must be true or false, but was '" + value + "'");
            }
            return value.equalsIgnoreCase("true") ? ConditionOutcome.match("redis-lock.enabled is true")
                    : ConditionOutcome.noMatch("redis-lock.enabled is false");
        }
    }
}
