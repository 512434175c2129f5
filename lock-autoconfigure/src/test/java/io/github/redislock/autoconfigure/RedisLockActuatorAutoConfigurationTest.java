package io.github.redislock.autoconfigure;

import io.github.redislock.actuate.LocksEndpoint;
import io.github.redislock.actuate.ForceReleasingLocksEndpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class RedisLockActuatorAutoConfigurationTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.LOCK_HEALTH), RedisLockAutoConfiguration.class,
                    RedisLockActuatorAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void theEndpointExistsOnlyWhenExposed() {
        contextRunner.run(context -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
        contextRunner.withPropertyValues("management.endpoints.web.exposure.include=locks")
                .run(context -> assertThat(context).hasSingleBean(LocksEndpoint.class));
    }

    @Test
    void theEndpointCanForceReleaseOnlyWhenThePropertyAllowsIt() {
        ApplicationContextRunner exposed = contextRunner.withPropertyValues("management.endpoints.web.exposure.include=locks");
        exposed.run(context -> assertThat(context.getBean(LocksEndpoint.class)).isNotInstanceOf(ForceReleasingLocksEndpoint.class));
        exposed.withPropertyValues("redis-lock.actuator.force-release-enabled=true")
                .run(context -> assertThat(context.getBean(LocksEndpoint.class)).isInstanceOf(ForceReleasingLocksEndpoint.class));
    }

    @Test
    void aMisspeltSettingFailsStartupNamingIt() {
        contextRunner.withPropertyValues("redis-lock.actuator.force-release=true")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("redis-lock.actuator.force-release"));
    }

    @Test
    void theHealthIndicatorIsOnUnlessSwitchedOff() {
        contextRunner.run(context -> assertThat(context).hasBean("redisLockHealthIndicator"));
        contextRunner.withPropertyValues("management.health.redis-lock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("redisLockHealthIndicator"));
    }

    @Test
    void withoutActuatorOnTheClasspathNothingLoads() {
        contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate", "org.springframework.boot.health"))
                .withPropertyValues("management.endpoints.web.exposure.include=locks")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksEndpoint.class)
                        .doesNotHaveBean("redisLockHealthIndicator"));
    }

    @Test
    void backsOffWhenLocksAreSwitchedOff() {
        contextRunner.withPropertyValues("redis-lock.enabled=false", "management.endpoints.web.exposure.include=locks")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LocksEndpoint.class)
                        .doesNotHaveBean("redisLockHealthIndicator"));
    }
}
