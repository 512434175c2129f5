package io.github.redislock.test;

import java.util.Map;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Points one application context at its test class's server: {@code spring.data.redis.host},
 * {@code port} and {@code url}, in a property source above all others.
 *
 * <p>Why the URL too: Spring Boot prefers {@code spring.data.redis.url} to host and port, so an
 * application whose configuration names a URL would otherwise still reach for it, and with it any
 * password the test server does not have. The context is registered as a user of the server, which
 * keeps the server running until {@link RedisServerContextCloser} has closed the context.
 */
final class RedisServerContextCustomizer implements ContextCustomizer {

    /** The name of the property source, as it appears in the environment. */
    static final String PROPERTY_SOURCE_NAME = "withRedisServer";

    private final Class<?> owner;

    RedisServerContextCustomizer(Class<?> owner) {
        this.owner = owner;
    }

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
        RunningRedisServer server = RedisServers.acquire(owner);
        Map<String, Object> properties = Map.of(
                "spring.data.redis.host", server.host(),
                "spring.data.redis.port", Integer.toString(server.port()),
                "spring.data.redis.url", server.uri());
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE_NAME, properties));
        RedisServers.usedBy(owner, context::isActive);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RedisServerContextCustomizer customizer && customizer.owner == owner;
    }

    @Override
    public int hashCode() {
        return owner.hashCode();
    }
}
