package io.github.redislock.actuate;

import io.github.redislock.LockAdmin;
import io.github.redislock.LockCommands;
import io.github.redislock.RedisLocker;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.watchdog.LockWatchdog;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code locks} endpoint, when Spring Boot Actuator is present. The endpoint is created only when
 * exposed ({@code management.endpoints.web.exposure.include}). The endpoint API is the same on Boot 4
 * and Boot 3.5; the health indicator is not, and has an auto-configuration per line.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(LockWatchdog.class)
@EnableConfigurationProperties(RedisLockActuatorProperties.class)
public class RedisLockActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(LocksEndpoint.class)
    @ConditionalOnBean({RedisLocker.class, LockCommands.class})
    static class LocksEndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean(LocksEndpoint.class)
        LocksEndpoint locksEndpoint(RedisLocker locker, LockWatchdog watchdog, LockCommands commands,
                                    RedisLockActuatorProperties properties, ApplicationEventPublisher events) {
            LockAdmin admin = new LockAdmin(commands, locker.getKeyPrefix());
            return properties.isForceReleaseEnabled()
                    ? new ForceReleasingLocksEndpoint(locker, watchdog, admin, events)
                    : new LocksEndpoint(locker, watchdog, admin);
        }
    }
}
