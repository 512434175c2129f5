package io.github.redislock.test;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The JUnit side of {@link WithRedisServer}: starts the class's server before its tests, stops it after
 * them (once the Spring side has closed the application context built on it), and injects it as a
 * {@link RunningRedisServer} parameter.
 *
 * <p>Why not public: it works only together with the annotation, which is also how the Spring side
 * finds the classes that have a server; registered on its own it would give a server Spring never sees.
 */
final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    @Override
    public void beforeAll(ExtensionContext context) {
        RedisServers.acquire(owner(context));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        // A @Nested class uses its enclosing class's server, which stops after the enclosing class.
        if (owner(context) == testClass) {
            RedisServers.ownerFinished(testClass);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RunningRedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return RedisServers.acquire(owner(extensionContext));
    }

    private static Class<?> owner(ExtensionContext context) {
        Class<?> testClass = context.getRequiredTestClass();
        return RedisServers.ownerOf(testClass).orElseThrow(() -> new ExtensionConfigurationException(
                testClass.getName() + " uses the redis-server extension without @WithRedisServer; annotate the class"
                        + " with @WithRedisServer instead of registering the extension directly"));
    }
}
