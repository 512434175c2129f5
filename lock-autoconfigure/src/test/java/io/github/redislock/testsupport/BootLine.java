package io.github.redislock.testsupport;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot's own auto-configurations that the tests combine with ours, found by name on whichever
 * Boot line the tests run against: Boot 4 moved them into per-technology modules and packages. The same
 * test sources are compiled and run against Boot 4 ({@code lock-autoconfigure}) and Boot 3.5
 * ({@code lock-autoconfigure-boot3}), so a test names a role here, never a Boot class.
 */
public final class BootLine {

    /** Redis: the application's {@code RedisConnectionFactory} from {@code spring.data.redis.*}. */
    public static final List<String> REDIS = List.of(
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration");

    /** Micrometer: observations, meters and the simple registry that tests read them from. */
    public static final List<String> METRICS = List.of(
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration");

    /** A JDBC data source with Spring-managed transactions. */
    public static final List<String> JDBC_TRANSACTIONS = List.of(
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration",
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration",
            "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration");

    /** Our {@code redisLock} health indicator, whose auto-configuration is per line. */
    public static final List<String> LOCK_HEALTH = List.of(
            "io.github.redislock.autoconfigure.RedisLockHealthAutoConfiguration",
            "io.github.redislock.autoconfigure.RedisLockBoot3HealthAutoConfiguration");

    private static final String BOOT_4_MARKER = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration";

    private BootLine() {
    }

    /** Whether the tests run against Spring Boot 4. */
    public static boolean isBoot4() {
        return ClassUtils.isPresent(BOOT_4_MARKER, BootLine.class.getClassLoader());
    }

    /** Spring Boot's Redis auto-configuration followed by ours: what most tests start. */
    public static AutoConfigurations redisAnd(Class<?>... ours) {
        return of(List.of(REDIS), ours);
    }

    /**
     * The present classes of the given Boot roles with ours. A role none of whose classes is present
     * fails: a test that silently ran without, say, metrics would prove nothing.
     */
    public static AutoConfigurations of(List<List<String>> roles, Class<?>... ours) {
        List<Class<?>> classes = new ArrayList<>();
        for (List<String> role : roles) {
            List<Class<?>> present = role.stream().flatMap(BootLine::load).toList();
            if (present.isEmpty()) {
                throw new IllegalStateException("None of " + role + " is on the test classpath");
            }
            classes.addAll(present);
        }
        classes.addAll(Arrays.asList(ours));
        return AutoConfigurations.of(classes.toArray(Class<?>[]::new));
    }

    private static Stream<Class<?>> load(String name) {
        ClassLoader loader = BootLine.class.getClassLoader();
        return ClassUtils.isPresent(name, loader) ? Stream.of(ClassUtils.resolveClassName(name, loader)) : Stream.empty();
    }
}
