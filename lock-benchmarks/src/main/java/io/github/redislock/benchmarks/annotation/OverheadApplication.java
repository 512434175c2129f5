package io.github.redislock.benchmarks.annotation;

import java.time.Duration;

import com.baomidou.lock.spring.boot.autoconfigure.LockAutoConfiguration;
import com.baomidou.lock.spring.boot.autoconfigure.RedisTemplateLockAutoConfiguration;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * Scenario 4's application: Spring Boot auto-configuration over this module's classpath, as an
 * application depending on the redis-lock starter and lock4j gets it. lock4j 2.2.7 registers its
 * auto-configuration only in {@code spring.factories}, which Spring Boot 3 and 4 no longer read, so it is
 * imported by name as such an application has to. Spring Integration is on the classpath only as a
 * peer of the other scenarios; on Spring Boot 4 its auto-configuration lives in a module this one does
 * not depend on, so none of its infrastructure starts.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@ImportAutoConfiguration({LockAutoConfiguration.class, RedisTemplateLockAutoConfiguration.class})
public class OverheadApplication {

    @Bean
    StockService stockService() {
        return new StockService();
    }

    /** Proxies {@link PassThrough} methods through an interceptor that only proceeds: the AOP hop's own cost. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor passThroughAdvisor() {
        MethodInterceptor proceed = MethodInvocation::proceed;
        return new DefaultPointcutAdvisor(AnnotationMatchingPointcut.forMethodAnnotation(PassThrough.class), proceed);
    }

    /** Starts the application on the benchmark's Redis. */
    public static ConfigurableApplicationContext start(String host, int port, Duration watchdogTimeout) {
        return new SpringApplicationBuilder(OverheadApplication.class)
                .web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .bannerMode(Banner.Mode.OFF)
                .properties(
                        "spring.data.redis.host=" + host,
                        "spring.data.redis.port=" + port,
                        "spring.data.redis.timeout=60s",
                        "redis-lock.watchdog-timeout=" + watchdogTimeout.toMillis() + "ms")
                .run();
    }
}
