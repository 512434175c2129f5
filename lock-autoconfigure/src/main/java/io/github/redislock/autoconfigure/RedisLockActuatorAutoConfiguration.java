package io.github.redislock.autoconfigure;

import io.github.redislock.actuate.ForceReleasingLocksEndpoint;
import io.github.redislock.actuate.LocksEndpoint;

import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.WatchdogState;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code locks} endpoint, when Spring Boot Actuator is present. The endpoint is created only when
 * exposed ({@code management.endpoints.web.exposure.include}). The endpoint API is the same on Boot 4
 * and Boot 3.5; the health indicator is not, and has an auto-configuration per line.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(WatchdogState.Source.class)
@EnableConfigurationProperties(RedisLockActuatorProperties.class)
public class RedisLockActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(LocksEndpoint.class)
    @ConditionalOnBean(RedisLocker.class)
    @Conditional(RedisLockRedlockAutoConfiguration.OnNoRedlockNodes.class) // its force-release needs one Redis
    static class LocksEndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean(LocksEndpoint.class)
        LocksEndpoint locksEndpoint(RedisLocker locker,
                                    RedisLockActuatorProperties properties, ApplicationEventPublisher events) {
            return properties.isForceReleaseEnabled()
                    ? new ForceReleasingLocksEndpoint(locker, events)
                    : new LocksEndpoint(locker);
        }
    }
}
