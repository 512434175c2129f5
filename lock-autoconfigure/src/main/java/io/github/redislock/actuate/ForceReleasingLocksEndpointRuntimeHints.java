package io.github.redislock.actuate;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * The {@code DELETE} operation of the {@code locks} endpoint and its payload, for a native image.
 * Spring Boot's AOT registers an endpoint's operations from the bean's declared type, and the endpoint
 * bean is declared as {@link LocksEndpoint}: whether it is a {@link ForceReleasingLocksEndpoint} is
 * decided when the application starts ({@code redis-lock.actuator.force-release-enabled}), not when it
 * is processed ahead of time. The operations are read from their annotations, as Boot reads them.
 * Registered in {@code META-INF/spring/aot.factories}, which is read whether Actuator is present or not.
 */
class ForceReleasingLocksEndpointRuntimeHints implements RuntimeHintsRegistrar {

    private static final String ENDPOINT_ANNOTATION = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        if (ClassUtils.isPresent(ENDPOINT_ANNOTATION, classLoader)) {
            new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(hints, ForceReleasingLocksEndpoint.class);
        }
    }
}
