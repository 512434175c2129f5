package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import io.github.redislock.actuate.ForceReleasingLocksEndpoint;
import io.github.redislock.actuate.LocksEndpoint;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.LockKeyExpressionRoot;
import io.github.redislock.core.LockAdmin;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.javapoet.ClassName;

/**
 * What a native image of an application using the library would be given: the runtime hints of the
 * whole ahead-of-time processing of an application with every auto-configuration on the classpath, as
 * {@code spring-boot:process-aot} produces them (Spring's and Boot's contributions together with ours
 * from {@code META-INF/spring/aot.factories}). Runs on Boot 4 and again on Boot 3.5. No Redis is
 * needed: ahead-of-time processing creates no Redis connection.
 */
class NativeHintsTest {

    static RuntimeHints hints;

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {

        @Bean
        Shop shop() {
            return new Shop();
        }

        @Bean
        Catalog catalog() {
            return new DefaultCatalog();
        }
    }

    /** Proxied by class, as Spring Boot proxies by default. */
    static class Shop {

        @DistributedLock(key = "'stock:' + #sku", fallbackMethod = "busy")
        public String buy(String sku) {
            return sku;
        }

        String busy(String sku) {
            return "busy";
        }
    }

    /** Declared as an interface: a JDK proxy calls the annotated interface method reflectively. */
    interface Catalog {

        @DistributedLock(key = "#root.methodName + ':' + #id")
        String entry(String id);
    }

    static class DefaultCatalog implements Catalog {

        @Override
        public String entry(String id) {
            return id;
        }
    }

    @BeforeAll
    static void processAheadOfTime() {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            TestPropertyValues.of("management.endpoints.web.exposure.include=locks,health").applyTo(context);
            context.register(Application.class);
            DefaultGenerationContext generation = new DefaultGenerationContext(
                    new ClassNameGenerator(ClassName.get(Application.class)), new InMemoryGeneratedFiles());
            new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
            hints = generation.getRuntimeHints();
        }
    }

    @Test
    void everyLuaScriptOnTheClasspathHasAResourceHint() throws IOException {
        Resource[] scripts = new PathMatchingResourcePatternResolver().getResources("classpath*:io/github/redislock/core/script/*.lua");
        List<String> names = Arrays.stream(scripts).map(Resource::getFilename).filter(Objects::nonNull).distinct().sorted().toList();

        assertThat(names).as("the scripts found on the classpath").isNotEmpty();
        assertThat(names.stream().filter(name -> !RuntimeHintsPredicates.resource().forResource("io/github/redislock/core/script/" + name).test(hints)))
                .as("scripts without a resource hint (is each one a LockScript constant?)").isEmpty();
    }

    @Test
    void theLocksEndpointsOperationsCanBeInvokedWhicheverEndpointTheApplicationStartsWith() {
        // Force-release is off here, and may be switched on when the processed application starts.
        assertInvocable(LocksEndpoint.class, "locks");
        assertInvocable(LocksEndpoint.class, "lock");
        assertInvocable(ForceReleasingLocksEndpoint.class, "forceRelease");
    }

    @Test
    void theLocksEndpointsPayloadsCanBeWrittenAsJson() {
        for (Class<?> payload : List.of(LocksEndpoint.LocksDescriptor.class, LocksEndpoint.HeldLockDescriptor.class,
                LocksEndpoint.WatchdogDescriptor.class, LockAdmin.RedisState.class, ForceReleasingLocksEndpoint.ForceReleaseDescriptor.class)) {
            assertThat(Arrays.stream(payload.getRecordComponents()).map(component -> component.getAccessor().getName())
                    .filter(accessor -> !invocable(payload, accessor))).as("accessors of " + payload.getName() + " without a hint").isEmpty();
        }
    }

    @Test
    void theLockPropertiesCanBeBound() {
        assertInvocable(RedisLockProperties.class, "setWatchdogTimeout");
        assertInvocable(RedisLockProperties.class, "setReleaseAfterTransaction");
        assertInvocable(RedisLockActuatorProperties.class, "setForceReleaseEnabled");
    }

    @Test
    void anAnnotatedMethodAndTheFallbackItNamesCanBeInvoked() {
        assertInvocable(Shop.class, "buy");
        assertInvocable(Shop.class, "busy");
    }

    @Test
    void anAnnotatedInterfaceMethodCanBeInvokedThroughItsJdkProxy() {
        assertInvocable(Catalog.class, "entry");
    }

    @Test
    void keyExpressionsCanReadTheirRoot() {
        assertThat(Arrays.stream(LockKeyExpressionRoot.class.getDeclaredMethods()).filter(method -> method.getName().startsWith("get"))
                .map(Method::getName).filter(getter -> !invocable(LockKeyExpressionRoot.class, getter)))
                .as("getters of #root without a hint").isEmpty();
    }

    private static void assertInvocable(Class<?> type, String methodName) {
        assertThat(invocable(type, methodName)).as("a hint to invoke " + type.getName() + "#" + methodName).isTrue();
    }

    private static boolean invocable(Class<?> type, String methodName) {
        return Arrays.stream(type.getDeclaredMethods()).filter(method -> method.getName().equals(methodName))
                .anyMatch(method -> RuntimeHintsPredicates.reflection().onMethod(method).invoke().test(hints));
    }
}
