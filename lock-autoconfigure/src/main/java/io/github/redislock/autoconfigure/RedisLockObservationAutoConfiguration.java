package io.github.redislock.autoconfigure;

import io.github.redislock.observation.LockMeterBinder;
import io.github.redislock.observation.LockNamer;
import io.github.redislock.observation.MicrometerLockObserver;

import io.github.redislock.LockObserver;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.WatchdogState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Metrics and traces of the locks, when the application has Micrometer's registries (Spring Boot
 * Actuator provides them). Without them nothing here loads and the locks report to
 * {@link LockObserver#NONE}.
 *
 * <p>Boot's registry auto-configurations are named for both lines (4.x, then 3.5): ordered before
 * them, the {@code @ConditionalOnBean} below would find no registry and switch metrics off silently.
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass({ObservationRegistry.class, MeterRegistry.class})
@ConditionalOnBean({ObservationRegistry.class, MeterRegistry.class, WatchdogState.Source.class})
public class RedisLockObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockObserver.class)
    LockObserver micrometerLockObserver(ObservationRegistry observations, MeterRegistry meters, ObjectProvider<LockNamer> namer) {
        return new MicrometerLockObserver(observations, meters, namer.getIfAvailable(() -> LockNamer.DEFAULT));
    }

    @Bean
    @ConditionalOnBean(RedisLocker.class)
    @Conditional(RedisLockRedlockAutoConfiguration.OnNoRedlockNodes.class) // as documented: lock metrics are off with Redlock
    LockMeterBinder lockMeterBinder(RedisLocker locker) {
        return new LockMeterBinder(locker);
    }
}
