package io.github.redislock.boot3.autoconfigure;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockHealthAutoConfiguration;
import io.github.redislock.boot3.actuate.RedisLockBoot3HealthIndicator;
import io.github.redislock.core.WatchdogState;

import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code redisLock} health indicator on Spring Boot 3.5, whose health API is in Actuator's own
 * package. Named as a string so that on Boot 4, which has no such class, this is skipped and
 * {@link RedisLockHealthAutoConfiguration} supplies the indicator instead.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
@ConditionalOnBean(WatchdogState.Source.class)
public class RedisLockBoot3HealthAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("redis-lock")
    static class HealthIndicatorConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "redisLockHealthIndicator")
        RedisLockBoot3HealthIndicator redisLockHealthIndicator(WatchdogState.Source locker) {
            return new RedisLockBoot3HealthIndicator(locker.watchdogState());
        }
    }
}
