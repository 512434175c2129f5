package io.github.redislock.test;

import java.util.List;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;

/**
 * The Spring side of {@link WithRedisServer}: gives the application context of every test class that
 * has a server a {@link RedisServerContextCustomizer}.
 *
 * <p>Why a context customizer, registered in {@code META-INF/spring.factories}: it is the Spring
 * TestContext framework's own hook for changing a test's context before it is refreshed, the same on
 * Spring Framework 6 (Boot 3.5) and 7 (Boot 4), and it takes part in the context cache key, so a class
 * never reuses a context built for another class's server.
 */
final class RedisServerContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass,
            List<ContextConfigurationAttributes> configAttributes) {
        return RedisServers.ownerOf(testClass).map(RedisServerContextCustomizer::new).orElse(null);
    }
}
