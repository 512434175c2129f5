package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.LockObserver;
import io.github.redislock.Locker;
import io.github.redislock.actuate.LocksEndpoint;
import io.github.redislock.annotation.DistributedLockAdvisor;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application with every auto-configuration on the classpath, as a user's is: found through the
 * real {@code AutoConfiguration.imports} files, ordered by Boot itself. Observer, endpoint and health
 * indicator are exactly what fails silently when an auto-configuration is ordered against, or made
 * conditional on, a class of the other Boot line, so this runs on Boot 4 and again on Boot 3.5.
 */
class EveryFeatureOnThisBootLineTest {

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
    }

    @Test
    void theLockerTheAnnotationMetricsTheLocksEndpointAndTheHealthIndicatorAreAllThere() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port(),
                        "management.endpoints.web.exposure.include=locks,health")
                .run()) {
            Locker locker = context.getBean(Locker.class);
            locker.lock("every-feature");
            locker.unlock("every-feature");

            assertThat(context.getBeansOfType(DistributedLockAdvisor.class)).hasSize(1);
            assertThat(context.getBean(LockObserver.class)).isNotSameAs(LockObserver.NONE);
            assertThat(context.getBean(MeterRegistry.class).find("redis.lock.acquire").timer())
                    .as("the acquisition timer on Boot " + (BootLine.isBoot4() ? "4" : "3.5")).isNotNull()
                    .satisfies(timer -> assertThat(timer.count()).isPositive());
            assertThat(context.getBeansOfType(LocksEndpoint.class)).hasSize(1);
            assertThat(context.containsBean("redisLockHealthIndicator")).isTrue();
        }
    }
}
