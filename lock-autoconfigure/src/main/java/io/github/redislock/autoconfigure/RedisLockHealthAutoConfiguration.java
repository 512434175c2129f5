package io.github.redislock.autoconfigure;

import io.github.redislock.actuate.RedisLockHealthIndicator;

import io.github.redislock.core.WatchdogState;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code redisLock} health indicator on Spring Boot 4, whose health API lives in
 * {@code spring-boot-health}. The class is named as a string so that this configuration is skipped,
 * not failed, on Boot 3.5, where the starter's {@code lock-autoconfigure-boot3} supplies the indicator.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(WatchdogState.Source.class)
public class RedisLockHealthAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("redis-lock")
    static class HealthIndicatorConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "redisLockHealthIndicator")
        RedisLockHealthIndicator redisLockHealthIndicator(WatchdogState.Source locker) {
            return new RedisLockHealthIndicator(locker.watchdogState());
        }
    }
}
