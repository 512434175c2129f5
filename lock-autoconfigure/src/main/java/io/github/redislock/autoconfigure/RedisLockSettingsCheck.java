package io.github.redislock.autoconfigure;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.util.ClassUtils;

/**
 * Stops startup when a {@code redis-lock.*} setting is set but has no effect where the locks live
 * ({@link LockRedisMode}), naming it and saying why: a login for a Sentinel group that is not
 * configured, a timeout that only the Redlock masters would read, a misspelt name. Spring Boot's own
 * failure analysis then shows where the setting came from.
 *
 * <p>Why: a setting that is silently ignored is worse than one that fails, because the user believes
 * it is in force (issue 34: a half-configured Sentinel put the locks on the application's Redis). The
 * settings of the leader election, the Spring Integration registry and the Actuator endpoint
 * ({@code redis-lock.leader.*}, {@code .integration.*}, {@code .actuator.*}) belong to their own
 * auto-configurations and are judged here only when the library their feature needs is missing, as
 * then nothing binds them. With {@code redis-lock.enabled=false} nothing is
 * checked: switching the library off keeps the rest of the configuration for when it is on again.
 */
final class RedisLockSettingsCheck implements InitializingBean, BeanClassLoaderAware {

    private static final String PREFIX = "redis-lock";

    /** Groups of {@code redis-lock.*} that other configuration properties classes own. */
    private static final Set<String> OTHER_GROUPS = Set.of("leader", "integration", "actuator");

    /**
     * Of those groups, the ones whose feature needs a library on the classpath: the class its
     * auto-configuration requires, and the library. Without it nothing binds the group's settings.
     */
    private static final Map<String, List<String>> GROUP_LIBRARIES = Map.of(
            "integration", List.of("org.springframework.integration.support.locks.LockRegistry", "Spring Integration (spring-integration-core)"),
            "actuator", List.of("org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint",
                    "Spring Boot Actuator (spring-boot-starter-actuator)"));

    private static final Set<LockRedisMode> EVERY_MODE = EnumSet.allOf(LockRedisMode.class);
    private static final Set<LockRedisMode> ONE_REDIS = EnumSet.complementOf(EnumSet.of(LockRedisMode.REDLOCK));
    private static final Set<LockRedisMode> OWN_REDIS = EnumSet.of(LockRedisMode.URL, LockRedisMode.SENTINEL, LockRedisMode.CLUSTER);
    private static final Set<LockRedisMode> SENTINEL_OR_CLUSTER = EnumSet.of(LockRedisMode.SENTINEL, LockRedisMode.CLUSTER);

    /** Every setting of {@link RedisLockProperties}, with the modes it takes effect in and why it does not in the others. */
    private static final Map<String, Setting> SETTINGS = settings(
            new Setting("enabled", false, EVERY_MODE, mode -> ""),
            new Setting("key-prefix", false, EVERY_MODE, mode -> ""),
            new Setting("watchdog-timeout", false, EVERY_MODE, mode -> ""),
            new Setting("default-wait-time", false, EVERY_MODE, mode -> ""),
            new Setting("aspect-order", false, EVERY_MODE, mode -> ""),
            new Setting("release-after-transaction", false, EVERY_MODE, mode -> ""),
            new Setting("caller-connections", false, ONE_REDIS,
                    mode -> "the Redlock Locker asks its masters together, each on its own Lettuce connection, never on the calling thread"),
            new Setting("replica-sync", false, ONE_REDIS,
                    mode -> "the Redlock Locker does not wait for replicas: its masters are independent, and a majority of them holds each lock"),
            new Setting("redlock.nodes", true, EVERY_MODE, mode -> ""),
            new Setting("redlock.node-timeout", false, EnumSet.of(LockRedisMode.REDLOCK), RedisLockSettingsCheck::onlyRedlock),
            new Setting("redlock.retry-delay", false, EnumSet.of(LockRedisMode.REDLOCK), RedisLockSettingsCheck::onlyRedlock),
            new Setting("redis.url", false, ONE_REDIS, RedisLockSettingsCheck::replacedByRedlock),
            new Setting("redis.sentinel.master", false, ONE_REDIS, RedisLockSettingsCheck::replacedByRedlock),
            new Setting("redis.sentinel.nodes", true, ONE_REDIS, RedisLockSettingsCheck::replacedByRedlock),
            new Setting("redis.cluster.nodes", true, ONE_REDIS, RedisLockSettingsCheck::replacedByRedlock),
            new Setting("redis.username", false, SENTINEL_OR_CLUSTER, RedisLockSettingsCheck::loginElsewhere),
            new Setting("redis.password", false, SENTINEL_OR_CLUSTER, RedisLockSettingsCheck::loginElsewhere),
            new Setting("redis.ssl", false, SENTINEL_OR_CLUSTER, mode -> mode == LockRedisMode.URL
                    ? "a redis-lock.redis.url says TLS by its scheme, rediss://"
                    : loginElsewhere(mode)),
            new Setting("redis.timeout", false, OWN_REDIS, mode -> mode == LockRedisMode.REDLOCK
                    ? "the Redlock masters take redis-lock.redlock.node-timeout"
                    : "it is the timeout of the locks' own Redis (redis-lock.redis.url, .sentinel.* or .cluster.nodes), and none is set; "
                            + "the application's Redis takes spring.data.redis.timeout"));

    private final Environment environment;
    private final RedisLockProperties properties;
    private ClassLoader classLoader = RedisLockSettingsCheck.class.getClassLoader();

    /** A bean that checks when it is created, before the beans that connect to Redis (they take it as a parameter). */
    RedisLockSettingsCheck(Environment environment, RedisLockProperties properties) {
        this.environment = environment;
        this.properties = properties;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public void afterPropertiesSet() {
        check(environment, properties, classLoader);
    }

    /**
     * Fails on the first {@code redis-lock.*} setting of {@code environment} that has no effect in the
     * mode that {@code properties} (bound from it) choose, or in a group whose library {@code classLoader} lacks.
     *
     * @throws InvalidConfigurationPropertyValueException naming the setting and why it has no effect
     */
    static void check(Environment environment, RedisLockProperties properties, ClassLoader classLoader) {
        LockRedisMode mode = LockRedisMode.of(properties);
        for (ConfigurationPropertyName name : setNames(environment)) {
            List<String> library = name.getNumberOfElements() > 1 ? GROUP_LIBRARIES.get(name.getElement(1, ConfigurationPropertyName.Form.DASHED)) : null;
            if (library != null && !ClassUtils.isPresent(library.get(0), classLoader)) {
                throw new InvalidConfigurationPropertyValueException(name.toString(), "(set)", name + " is set but has no effect: "
                        + library.get(1) + " is not on the classpath, so nothing of redis-lock reads it. Remove it, or add the library");
            }
            String relative = relativeName(name);
            if (relative == null) {
                continue;
            }
            Setting setting = SETTINGS.get(relative);
            if (setting == null) {
                throw new InvalidConfigurationPropertyValueException(PREFIX + "." + relative, "(set)",
                        PREFIX + "." + relative + " is not a redis-lock setting, so it has no effect; see docs/configuration.md for their names");
            }
        }
        Binder binder = Binder.get(environment);
        for (Setting setting : SETTINGS.values()) {
            if (!setting.effectiveIn().contains(mode) && setting.isSet(binder)) {
                String name = PREFIX + "." + setting.name();
                throw new InvalidConfigurationPropertyValueException(name, setting.shownValue(binder),
                        name + " is set but has no effect with " + mode.description() + ": " + setting.whyNot().apply(mode)
                                + ". Remove it, or set what it applies to");
            }
        }
    }

    /**
     * The {@code redis-lock.*} names of the application's own enumerable sources: property files, YAML,
     * command-line arguments. Not the JVM's system properties nor the environment variables: they carry
     * other tools' settings too, and relaxed binding puts a name such as {@code redislock.test.x} below
     * {@code redis-lock} (the known names are still found there, by binding).
     */
    private static List<ConfigurationPropertyName> setNames(Environment environment) {
        ConfigurationPropertyName root = ConfigurationPropertyName.of(PREFIX);
        List<ConfigurationPropertyName> names = new ArrayList<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable && !isSystemSource(source)) {
                iterable.filter(root::isAncestorOf).forEach(names::add);
            }
        }
        return names;
    }

    private static boolean isSystemSource(ConfigurationPropertySource source) {
        return source.getUnderlyingSource() instanceof PropertySource<?> underlying
                && (underlying.getName().equals(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME)
                        || underlying.getName().equals(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME));
    }

    /** The name below {@code redis-lock.} without list indexes, or null for a group another class owns. */
    private static String relativeName(ConfigurationPropertyName name) {
        StringBuilder relative = new StringBuilder();
        for (int i = 1; i < name.getNumberOfElements(); i++) {
            if (name.isNumericIndex(i)) {
                continue;
            }
            String element = name.getElement(i, ConfigurationPropertyName.Form.DASHED);
            if (i == 1 && OTHER_GROUPS.contains(element)) {
                return null;
            }
            relative.append(relative.length() == 0 ? "" : ".").append(element);
        }
        return relative.toString();
    }

    private static String onlyRedlock(LockRedisMode mode) {
        return "it tunes the Redlock Locker, which runs only when redis-lock.redlock.nodes lists its masters";
    }

    private static String replacedByRedlock(LockRedisMode mode) {
        return "the Redlock masters replace the one Redis of redis-lock.redis.*";
    }

    private static String loginElsewhere(LockRedisMode mode) {
        return switch (mode) {
            case URL -> "a redis-lock.redis.url carries its own login and TLS (redis://user:password@host, rediss:// for TLS)";
            case REDLOCK -> "each redis-lock.redlock.nodes URL carries its own login and TLS";
            default -> "it applies to redis-lock.redis.sentinel.* and redis-lock.redis.cluster.nodes, and neither is set; "
                    + "the application's Redis takes spring.data.redis.*";
        };
    }

    private static Map<String, Setting> settings(Setting... settings) {
        Map<String, Setting> byName = new LinkedHashMap<>();
        for (Setting setting : settings) {
            byName.put(setting.name(), setting);
        }
        return byName;
    }

    /** The known names, below {@code redis-lock.}: for the test that keeps them in step with {@link RedisLockProperties}. */
    static Set<String> knownNames() {
        return SETTINGS.keySet();
    }

    /**
     * One setting.
     *
     * @param name below {@code redis-lock.}
     * @param list whether it is a list, set as {@code a,b} or by index
     * @param effectiveIn the modes it takes effect in
     * @param whyNot why it has no effect in a mode outside {@code effectiveIn}
     */
    private record Setting(String name, boolean list, Set<LockRedisMode> effectiveIn, Function<LockRedisMode, String> whyNot) {

        boolean isSet(Binder binder) {
            return list ? binder.bind(PREFIX + "." + name, Bindable.listOf(String.class)).isBound()
                    : binder.bind(PREFIX + "." + name, String.class).isBound();
        }

        /** The value as a message may show it: never a password. */
        String shownValue(Binder binder) {
            if (name.endsWith("password")) {
                return "******";
            }
            String value = list ? String.join(",", binder.bind(PREFIX + "." + name, Bindable.listOf(String.class)).get())
                    : binder.bind(PREFIX + "." + name, String.class).get();
            return RedisLockProperties.withoutPassword(value);
        }
    }
}
