package io.github.redislock.test;

import org.springframework.core.Ordered;
import org.springframework.test.annotation.DirtiesContext.HierarchyMode;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;

/**
 * Closes, at the end of each test class that uses a {@link WithRedisServer} server, the application
 * context built on it, then lets the server stop.
 *
 * <p>Why: Spring caches a test's context for reuse by later classes, but this one points at a server
 * that stops with its class; left in the cache it would keep reconnecting to a closed port until the
 * JVM exits. Marking it dirty is Spring's own way to close a context and drop it from the cache. It
 * runs after Spring's own listeners have finished with the context (its order puts it last in
 * {@code afterTestClass}), and registered in {@code META-INF/spring.factories} it joins the default
 * listeners of Spring Framework 6 and 7 alike.
 */
final class RedisServerContextCloser implements TestExecutionListener, Ordered {

    @Override
    public int getOrder() {
        // afterTestClass runs the listeners in reverse order: the first here is the last there.
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public void afterTestClass(TestContext testContext) {
        RedisServers.ownerOf(testContext.getTestClass()).ifPresent(owner -> {
            if (testContext.hasApplicationContext()) {
                testContext.markApplicationContextDirty(HierarchyMode.EXHAUSTIVE);
            }
            RedisServers.stopIfUnused(owner);
        });
    }
}
