package io.github.redislock.autoconfigure;

import io.github.redislock.observation.LockMeterBinder;
import io.github.redislock.observation.MicrometerLockObserver;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockObserver;
import io.github.redislock.Locker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class RedisLockObservationAutoConfigurationTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class,
                    RedisLockObservationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port());

    private final ApplicationContextRunner withRegistries = contextRunner
            .withBean(ObservationRegistry.class, ObservationRegistry::create)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

    @Test
    void withBothRegistriesTheLocksReportToMicrometer() {
        withRegistries.run(context -> {
            assertThat(context).hasSingleBean(LockObserver.class).hasSingleBean(LockMeterBinder.class);
            assertThat(context.getBean(LockObserver.class)).isInstanceOf(MicrometerLockObserver.class);
        });
    }

    @Test
    void withoutRegistryBeansNothingIsObservedAndLocksStillWork() {
        contextRunner.run(context -> {
            assertThat(context).doesNotHaveBean(LockObserver.class).doesNotHaveBean(LockMeterBinder.class);
            Locker locker = context.getBean(Locker.class);
            locker.lock("unobserved");
            locker.unlock("unobserved");
        });
        contextRunner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> assertThat(context).doesNotHaveBean(LockObserver.class));
    }

    @Test
    void withoutMicrometerOnTheClasspathNothingLoads() {
        withRegistries.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObserver.class));
    }

    @Test
    void backsOffWhenLocksAreSwitchedOff() {
        withRegistries.withPropertyValues("redis-lock.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObserver.class).doesNotHaveBean(LockMeterBinder.class));
    }

    @Test
    void anObserverOfTheApplicationReplacesMicrometers() {
        LockObserver own = new LockObserver() {
        };
        withRegistries.withBean(LockObserver.class, () -> own)
                .run(context -> assertThat(context.getBean(LockObserver.class)).isSameAs(own));
    }
}
