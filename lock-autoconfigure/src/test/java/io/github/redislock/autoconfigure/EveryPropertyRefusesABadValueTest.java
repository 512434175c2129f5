package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Every property of the configuration metadata refuses a bad value at startup, naming itself: an
 * application with every auto-configuration, found as a user's are, is started with the value, on Boot 4
 * and (lock-autoconfigure-boot3) on Boot 3.5. A property added to the metadata without a case here fails
 * {@link #everyPropertyOfTheMetadataHasACase}; a bound that the refusal states but the property's row of
 * docs/configuration.md or its javadoc does not, {@link #everyBoundThatARefusalStatesIsTheOneTheDocsAndTheMetadataState}.
 */
class EveryPropertyRefusesABadValueTest {

    private static final Pattern METADATA_NAME = Pattern.compile("\"name\"\\s*:\\s*\"((?:redis-lock|management\\.health\\.redis-lock)[^\"]*)\"");
    private static final Pattern DESCRIPTION = Pattern.compile("\"description\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    /** The bound a refusal states: at least a duration, or 0 or more (group 1 null). */
    private static final Pattern BOUND = Pattern.compile("must be (?:at least (\\d+ms)|0 or more)");
    /** Properties any value of which is valid: a user name or password is whatever the server has. */
    private static final Set<String> ANY_VALUE = Set.of("redis-lock.redis.username", "redis-lock.redis.password");

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Application {
    }

    /** {@code property} set to {@code value} (beside {@code others}, which make it take effect) stops startup with a message holding {@code says}. */
    record BadValue(String property, String value, List<String> others, String says) {
        BadValue(String property, String value, String says) {
            this(property, value, List.of(), says);
        }

        @Override
        public String toString() {
            return property + "=" + value;
        }
    }

    static Stream<BadValue> badValues() {
        String url = "redis://" + TestRedis.shared().host() + ":" + TestRedis.shared().port();
        String masters = "redis-lock.redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2,redis://127.0.0.1:3";
        return Stream.of(
                new BadValue("redis-lock.enabled", "maybe", "redis-lock.enabled must be true or false"),
                new BadValue("redis-lock.key-prefix", " ", "redis-lock.key-prefix must not be blank"),
                new BadValue("redis-lock.watchdog-timeout", "99ms", "redis-lock.watchdog-timeout must be at least 100ms"),
                new BadValue("redis-lock.default-wait-time", "-1ms", "redis-lock.default-wait-time must be 0 or more"),
                new BadValue("redis-lock.redlock.nodes", "redis://127.0.0.1:1,redis://127.0.0.1:2", "redis-lock.redlock.nodes needs at least 3"),
                new BadValue("redis-lock.redlock.node-timeout", "0ms", List.of(masters), "redis-lock.redlock.node-timeout must be at least 1ms"),
                new BadValue("redis-lock.redlock.retry-delay", "0ms", List.of(masters), "redis-lock.redlock.retry-delay must be at least 1ms"),
                new BadValue("redis-lock.aspect-order", "first", "redis-lock.aspect-order"),
                new BadValue("redis-lock.release-after-transaction", "maybe", "redis-lock.release-after-transaction"),
                new BadValue("redis-lock.caller-connections", "maybe", "redis-lock.caller-connections"),
                new BadValue("redis-lock.replica-sync", "0ms", "redis-lock.replica-sync must be at least 1ms"),
                new BadValue("redis-lock.actuator.force-release-enabled", "maybe", "redis-lock.actuator.force-release-enabled"),
                new BadValue("redis-lock.redis.url", "http://locks:6379", "redis-lock.redis.url has an invalid URL"),
                new BadValue("redis-lock.redis.sentinel.master", " ", List.of("redis-lock.redis.sentinel.nodes=127.0.0.1:26379"),
                        "redis-lock.redis.sentinel.master must name the master"),
                new BadValue("redis-lock.redis.sentinel.nodes", "127.0.0.1", List.of("redis-lock.redis.sentinel.master=locks"),
                        "redis-lock.redis.sentinel.nodes has an invalid node"),
                new BadValue("redis-lock.redis.cluster.nodes", "127.0.0.1", "redis-lock.redis.cluster.nodes has an invalid node"),
                new BadValue("redis-lock.redis.ssl", "maybe", List.of("redis-lock.redis.cluster.nodes=127.0.0.1:7000"), "redis-lock.redis.ssl"),
                new BadValue("redis-lock.redis.timeout", "0ms", List.of("redis-lock.redis.url=" + url), "redis-lock.redis.timeout must be at least 1ms"),
                new BadValue("redis-lock.leader.lease", "99ms", "redis-lock.leader.lease must be at least 100ms"),
                new BadValue("redis-lock.leader.roles", "x", "redis-lock.leader.roles"),
                new BadValue("redis-lock.leader.roles.billing.lease", "99ms", "redis-lock.leader.roles.billing.lease must be at least 100ms"),
                new BadValue("redis-lock.integration.lease", "99ms", "redis-lock.integration.lease must be at least 100ms"),
                new BadValue("management.health.redis-lock.enabled", "maybe", "management.health.redis-lock.enabled"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void stopsStartupNamingTheProperty(BadValue bad) {
        List<String> properties = new ArrayList<>(List.of("spring.data.redis.host=" + TestRedis.shared().host(),
                "spring.data.redis.port=" + TestRedis.shared().port(), bad.property() + "=" + bad.value()));
        properties.addAll(bad.others());
        Throwable failure = catchThrowable(() -> new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new)).run().close());
        assertThat(failure).as("startup with " + bad).isNotNull();
        List<String> messages = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        assertThat(messages).as("the messages of the startup failure").anySatisfy(message -> assertThat(message).contains(bad.says()));
    }

    @Test
    void everyPropertyOfTheMetadataHasACase() throws IOException {
        Set<String> properties = new TreeSet<>(metadataDescriptions().keySet());
        assertThat(properties).as("redis-lock properties in the metadata on the classpath").contains("redis-lock.key-prefix");
        properties.removeAll(ANY_VALUE);
        badValues().forEach(bad -> properties.remove(bad.property().replaceAll("\\.roles\\..*", ".roles")));
        assertThat(properties).as("properties of the metadata without a bad value tried here").isEmpty();
    }

    /**
     * The bound a refusal states ("must be at least 100ms", "must be 0 or more") is the one the property's row of
     * docs/configuration.md and its description in the metadata (its javadoc) state.
     */
    @Test
    void everyBoundThatARefusalStatesIsTheOneTheDocsAndTheMetadataState() throws IOException {
        Map<String, String> descriptions = metadataDescriptions();
        List<String> rows = Files.readAllLines(Path.of("..", "docs", "configuration.md"), StandardCharsets.UTF_8);
        List<String> wrong = new ArrayList<>();
        badValues().forEach(bad -> {
            Matcher bound = BOUND.matcher(bad.says());
            if (!bound.find()) {
                return;
            }
            String atLeast = bound.group(1);
            String property = bad.property().replaceAll("\\.roles\\.[^.]+\\.", ".roles.<role>.");
            String row = rows.stream().filter(line -> line.startsWith("| `" + property + "`")).findFirst().orElse("(no row)");
            if (!row.contains(atLeast == null ? "`0` or more" : "at least `" + atLeast + "`")) {
                wrong.add(property + ": docs/configuration.md does not say " + bound.group() + ": " + row);
            }
            String description = descriptions.get(property);
            if (description != null && !description.toLowerCase(Locale.ROOT).contains(atLeast == null ? "0 or more" : "at least " + atLeast)) {
                wrong.add(property + ": the metadata's description does not say " + bound.group() + ": " + description);
            }
        });
        assertThat(wrong).isEmpty();
    }

    /** The properties of the library's metadata as the classpath has it (the module's classes, or on Boot 3.5's line its jar), with their descriptions. */
    private Map<String, String> metadataDescriptions() throws IOException {
        Map<String, String> descriptions = new TreeMap<>();
        for (URL metadata : Collections.list(getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = metadata.openStream()) {
                String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                int hints = json.indexOf("\"hints\"");
                String properties = json.substring(json.indexOf("\"properties\""), hints < 0 ? json.length() : hints);
                Matcher name = METADATA_NAME.matcher(properties);
                boolean found = name.find();
                while (found) { // an entry runs from its name to the next one's
                    String property = name.group(1);
                    int start = name.end();
                    found = name.find();
                    Matcher description = DESCRIPTION.matcher(properties.substring(start, found ? name.start() : properties.length()));
                    descriptions.put(property, description.find() ? description.group(1) : "");
                }
            }
        }
        return descriptions;
    }
}
