package io.github.redislock.test;

import java.lang.annotation.Annotation;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;

import io.github.redislock.testsupport.TestRedis;

/**
 * The servers of the {@link WithRedisServer} test classes running in this JVM, one per owning class.
 *
 * <p>Why a registry both sides share: JUnit runs the class's callbacks and Spring builds the class's
 * application context, in an order that depends on how the user lists the annotations, and each must
 * find the same server. Whichever asks first starts it. It stops once the owner's tests are over and
 * nothing registered as using it is still open, so an application context built on it is always closed
 * while the server still answers (its Redis client shuts down cleanly), whichever side ends first.
 *
 * <p>Plain JDK only: a JUnit test without Spring loads this class too.
 */
final class RedisServers {

    /** Guarded by the class lock. */
    private static final Map<Class<?>, Started> STARTED = new HashMap<>();

    private RedisServers() {
    }

    /**
     * The owner's server, started now if it is not running yet.
     *
     * @param owner a class {@link #ownerOf} returned
     */
    static synchronized RunningRedisServer acquire(Class<?> owner) {
        Started started = STARTED.get(owner);
        if (started == null) {
            started = new Started(new RunningRedisServer(TestRedis.startNew()));
            STARTED.put(owner, started);
        }
        return started.server;
    }

    /**
     * Registers something that uses the owner's server, such as an application context, by a check of
     * whether it is still open: the server is not stopped while one is.
     */
    static synchronized void usedBy(Class<?> owner, BooleanSupplier stillOpen) {
        Started started = STARTED.get(owner);
        if (started == null) {
            throw new IllegalStateException("No redis-server is running for " + owner.getName()
                    + "; acquire it before registering what uses it");
        }
        started.users.add(stillOpen);
    }

    /** The owner's tests are over: stops its server now, or once the last user of it has closed. */
    static void ownerFinished(Class<?> owner) {
        synchronized (RedisServers.class) {
            Started started = STARTED.get(owner);
            if (started == null) {
                return;
            }
            started.ownerFinished = true;
        }
        stopIfUnused(owner);
    }

    /** Some user of the owner's server may have closed: stops the server if that was the last one after the owner's end. */
    static void stopIfUnused(Class<?> owner) {
        Started started;
        synchronized (RedisServers.class) {
            started = STARTED.get(owner);
            if (started == null || !started.ownerFinished
                    || started.users.stream().anyMatch(BooleanSupplier::getAsBoolean)) {
                return;
            }
            STARTED.remove(owner);
        }
        started.server.process().stop();
    }

    /**
     * The class whose server {@code testClass} uses: the outermost of {@code testClass} and the classes
     * enclosing it as {@code @Nested} (inner) classes that carry {@link WithRedisServer}, directly, by
     * inheritance or as a meta-annotation. Empty when none does.
     */
    static Optional<Class<?>> ownerOf(Class<?> testClass) {
        Class<?> owner = null;
        for (Class<?> type = testClass; type != null; type = type.getEnclosingClass()) {
            if (declaresServer(type)) {
                owner = type;
            }
            if (Modifier.isStatic(type.getModifiers()) || type.getEnclosingClass() == null) {
                break; // a static nested class is a test class of its own, not a @Nested one
            }
        }
        return Optional.ofNullable(owner);
    }

    private static boolean declaresServer(Class<?> type) {
        if (type.isAnnotationPresent(WithRedisServer.class)) {
            return true;
        }
        Set<Class<? extends Annotation>> seen = new HashSet<>();
        for (Annotation annotation : type.getAnnotations()) {
            if (isMetaAnnotated(annotation.annotationType(), seen)) {
                return true;
            }
        }
        return false;
    }

    private static boolean isMetaAnnotated(Class<? extends Annotation> annotationType, Set<Class<? extends Annotation>> seen) {
        if (!seen.add(annotationType) || annotationType.getName().startsWith("java.lang.annotation.")) {
            return false;
        }
        if (annotationType.isAnnotationPresent(WithRedisServer.class)) {
            return true;
        }
        for (Annotation meta : annotationType.getAnnotations()) {
            if (isMetaAnnotated(meta.annotationType(), seen)) {
                return true;
            }
        }
        return false;
    }

    /** A running server, what uses it, and whether its owner's tests are over. Guarded by the class lock. */
    private static final class Started {

        final RunningRedisServer server;
        final List<BooleanSupplier> users = new ArrayList<>();
        boolean ownerFinished;

        Started(RunningRedisServer server) {
            this.server = server;
        }
    }
}
