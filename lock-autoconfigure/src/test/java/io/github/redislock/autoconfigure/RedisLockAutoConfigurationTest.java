package io.github.redislock.autoconfigure;

import io.github.redislock.core.Internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.github.redislock.LockUtil;
import io.github.redislock.Locker;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Invalid {@code redis-lock.*} values are tried, with the other bad inputs, in {@code BadInputTest}. */
class RedisLockAutoConfigurationTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void providesALockerOnTheApplicationsRedis() {
        contextRunner.run(context -> {
            assertThat(context).hasSingleBean(Locker.class).hasSingleBean(RedisLocker.class);
            Locker locker = context.getBean(Locker.class);
            locker.lock("autoconfigured");
            assertThat(context.getBean(StringRedisTemplate.class).hasKey("lock:autoconfigured")).isTrue();
            locker.unlock("autoconfigured");
        });
    }

    @Test
    void appliesTheKeyPrefixAndWatchdogTimeout() {
        contextRunner.withPropertyValues("redis-lock.key-prefix=shop:locks:", "redis-lock.watchdog-timeout=2s").run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            assertThat(locker.getKeyPrefix()).isEqualTo("shop:locks:");
            assertThat(context.getBean(RedisLocker.class).watchdogState().timeout()).hasSeconds(2);
            locker.lock("prefixed");
            StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
            assertThat(redis.hasKey("shop:locks:prefixed")).isTrue();
            assertThat(redis.getExpire("shop:locks:prefixed")).isBetween(1L, 2L);
            locker.unlock("prefixed");
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnLocker() {
        contextRunner.withUserConfiguration(OwnLocker.class).run(context -> {
            assertThat(context).hasSingleBean(Locker.class);
            assertThat(context.getBean(Locker.class)).isSameAs(context.getBean(OwnLocker.class).locker);
            assertThat(((RedisLocker) context.getBean(Locker.class)).getKeyPrefix()).isEqualTo("custom:");
        });
    }

    @Test
    void canBeSwitchedOff() {
        contextRunner.withPropertyValues("redis-lock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(Locker.class).doesNotHaveBean(RedisLocker.class));
    }

    @Test
    void anEnabledFlagThatIsNeitherTrueNorFalseFailsStartupNamingItInsteadOfSwitchingTheLocksOff() {
        contextRunner.withPropertyValues("redis-lock.enabled=on")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("redis-lock.enabled must be true or false, but was 'on'"));
        contextRunner.withPropertyValues("redis-lock.enabled=TRUE")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Locker.class));
    }

    @Test
    void aReplicaSyncNotShorterThanTheCommandTimeoutFailsStartupNamingBoth() {
        contextRunner.withPropertyValues("spring.data.redis.timeout=300ms", "redis-lock.replica-sync=300ms")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("redis-lock.replica-sync (300ms) must be shorter than the command timeout of the locks' Redis, "
                                + "spring.data.redis.timeout (300ms)"));
        contextRunner.withPropertyValues("spring.data.redis.timeout=300ms", "redis-lock.replica-sync=299ms")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Locker.class));
    }

    @Test
    void withoutARedisConnectionFactoryStartupFailsSayingWhatToConfigure() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class)).run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            MissingRedisConnectionFactoryException cause = findCause(failure, MissingRedisConnectionFactoryException.class);
            FailureAnalysis analysis = new MissingRedisConnectionFactoryFailureAnalyzer().analyze(failure);
            assertThat(cause).isNotNull();
            assertThat(analysis.getDescription()).contains("no RedisConnectionFactory bean");
            assertThat(analysis.getAction()).contains("spring.data.redis.host").contains("redis-lock.redlock.nodes")
                    .contains("redis-lock.enabled=false");
        });
    }

    @ParameterizedTest(name = "connection pool enabled: {0}")
    @ValueSource(booleans = {false, true})
    @ExtendWith(OutputCaptureExtension.class)
    void closingTheContextClosesThePubSubConnectionBeforeTheConnectionFactoryStops(boolean pooled, CapturedOutput output) {
        contextRunner.withPropertyValues("spring.data.redis.lettuce.pool.enabled=" + pooled).run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            // A waiter opens the pub/sub connection; it stays open (on its anchor channel) after the waiter leaves.
            try (AutoCloseable waiting = Internals.join(locker, "lock:{lock:shutdown-order}:released")) {
                assertThat(Internals.subscribedChannelCount(locker)).isPositive();
            }
        });

        // Closed after the factory stopped, the connection would be in use when the factory's pool shuts
        // down, or closed a second time after the factory's client shut down; both are logged as WARN.
        assertThat(output).doesNotContain("contains unreleased connections").doesNotContain("Connection is already closed");
    }

    @Test
    void lockUtilWorksWhileTheContextRunsAndRefusesBeforeAndAfter() {
        assertThatThrownBy(() -> LockUtil.tryLock("static")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has not started yet");
        contextRunner.run(context -> {
            assertThat(LockUtil.tryLock("static")).isTrue();
            assertThat(context.getBean(Locker.class).isHeldByCurrentThread("static")).isTrue();
            LockUtil.unlock("static");
        });
        assertThatThrownBy(() -> LockUtil.isLocked("static")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void everyPropertyHasADescriptionInTheConfigurationMetadata() throws Exception {
        // This module's own output, not the first metadata file on the class path (Spring Boot's jars have theirs):
        // its classes directory, or its jar where another module (lock-autoconfigure-boot3) runs this test.
        Path location = Path.of(RedisLockProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path metaInf = (Files.isDirectory(location) ? location : FileSystems.newFileSystem(location).getPath("/")).resolve("META-INF");
        Path generated = metaInf.resolve("spring-configuration-metadata.json");
        assertThat(generated).as("configuration metadata generated by the processor").exists();
        List<Map<String, Object>> properties = redisLockProperties(generated);

        assertThat(properties).as("redis-lock.* properties in %s", generated).isNotEmpty();
        assertThat(properties).allSatisfy(property -> assertThat((String) property.get("description"))
                .as("description of %s", property.get("name")).isNotBlank());
        // Hand-written entries are merged into the generated file (a description may come from either side): none may be left out.
        Path additional = metaInf.resolve("additional-spring-configuration-metadata.json");
        if (Files.exists(additional)) {
            assertThat(properties.stream().map(property -> property.get("name")).toList()).as("properties in %s", generated)
                    .containsAll(redisLockProperties(additional).stream().map(property -> property.get("name")).toList());
        }
    }

    private static List<Map<String, Object>> redisLockProperties(Path metadata) throws Exception {
        List<Map<String, Object>> properties;
        try (InputStream json = Files.newInputStream(metadata)) {
            properties = JsonPath.read(json, "$.properties[*]");
        }
        return properties.stream().filter(property -> String.valueOf(property.get("name")).startsWith("redis-lock.")).toList();
    }

    private static <T extends Throwable> T findCause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    /** An application that builds its own Locker from the auto-configured parts, with a prefix of its own. */
    @Configuration(proxyBeanMethods = false)
    static class OwnLocker {
        Locker locker;

        @Bean
        Locker myLocker(org.springframework.data.redis.connection.RedisConnectionFactory connectionFactory,
                        org.springframework.context.ApplicationEventPublisher events) {
            locker = RedisLocker.builder(connectionFactory).keyPrefix("custom:").events(events).build();
            return locker;
        }
    }
}
