package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import io.github.redislock.Locker;
import io.github.redislock.core.RedlockLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

/**
 * Settings never fail silently: in every mode (the application's Redis, a URL of the locks' own, a
 * Sentinel group, a Cluster, Redlock masters) a {@code redis-lock.*} setting that is set but has no
 * effect there stops startup naming it and saying why, and the settings that do take effect start.
 */
class RedisLockSettingsTest {

    @RegisterExtension
    static final RedlockMasters servers = new RedlockMasters(3);

    final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(RedisLockRedlockAutoConfiguration.class, RedisLockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    static String url(int server) {
        return servers.get(server).redisUri();
    }

    static String masterUrls() {
        return servers.urls();
    }

    /** Startup fails naming {@code property} and saying why, with each of {@code reasons}. */
    static ContextConsumer<AssertableApplicationContext> failsNaming(String property, String... reasons) {
        return context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining(property + " is set but has no effect with");
            for (String reason : reasons) {
                assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(reason);
            }
        };
    }

    @Nested
    class OnTheApplicationsRedis {

        @Test
        void theSettingsEveryModeReadsStartTheLocker() {
            application.withPropertyValues("redis-lock.key-prefix=app:", "redis-lock.watchdog-timeout=5s", "redis-lock.default-wait-time=1s",
                    "redis-lock.aspect-order=5", "redis-lock.release-after-transaction=false", "redis-lock.replica-sync=100ms",
                    "redis-lock.caller-connections=false")
                    .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Locker.class));
        }

        @Test
        void aPasswordWithoutASentinelOrClusterFailsStartup() {
            application.withPropertyValues("redis-lock.redis.password=secret")
                    .run(context -> {
                        failsNaming("redis-lock.redis.password", "the application's Redis", "spring.data.redis").accept(context);
                        assertThat(context.getStartupFailure()).rootCause().message().doesNotContain("secret");
                    });
        }

        @Test
        void aUsernameSslOrTimeoutAloneFailsStartup() {
            application.withPropertyValues("redis-lock.redis.username=locks")
                    .run(failsNaming("redis-lock.redis.username", "neither is set"));
            application.withPropertyValues("redis-lock.redis.ssl=true")
                    .run(failsNaming("redis-lock.redis.ssl", "neither is set"));
            application.withPropertyValues("redis-lock.redis.timeout=2s")
                    .run(failsNaming("redis-lock.redis.timeout", "spring.data.redis.timeout"));
        }

        @Test
        void sentinelNodesWithoutTheMasterFailStartupInsteadOfUsingTheApplicationsRedis() {
            application.withPropertyValues("redis-lock.redis.sentinel.nodes=127.0.0.1:26379")
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .hasMessageContaining("redis-lock.redis.sentinel needs both master and nodes"));
        }

        @Test
        void aSentinelMasterWithoutNodesFailsStartup() {
            application.withPropertyValues("redis-lock.redis.sentinel.master=locks")
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .hasMessageContaining("redis-lock.redis.sentinel needs both master and nodes"));
        }

        @Test
        void aRedlockTuningWithoutRedlockMastersFailsStartup() {
            application.withPropertyValues("redis-lock.redlock.retry-delay=50ms")
                    .run(failsNaming("redis-lock.redlock.retry-delay", "runs only when redis-lock.redlock.nodes lists its masters"));
            application.withPropertyValues("redis-lock.redlock.node-timeout=50ms")
                    .run(failsNaming("redis-lock.redlock.node-timeout"));
        }

        @Test
        void aMisspeltSettingFailsStartupNamingIt() {
            application.withPropertyValues("redis-lock.redis.sentinal.master=locks")
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                            .hasMessageContaining("redis-lock.redis.sentinal.master is not a redis-lock setting"));
        }

        @Test
        void systemPropertiesOfOtherToolsThatRelaxedBindingPutsBelowRedisLockAreNotJudged() {
            application.withSystemProperties("redislock.test.other-tool=on")
                    .run(context -> assertThat(context).hasNotFailed());
        }

        @Test
        void aKnownSettingWithoutEffectIsFoundInSystemPropertiesToo() {
            application.withSystemProperties("redis-lock.redis.timeout=2s")
                    .run(failsNaming("redis-lock.redis.timeout"));
        }

        @Test
        void theLeaderIntegrationAndActuatorGroupsAreTheirOwnConfigurationsToJudge() {
            application.withPropertyValues("redis-lock.leader.lease=10s", "redis-lock.integration.lease=10s",
                    "redis-lock.actuator.force-release-enabled=true")
                    .run(context -> assertThat(context).hasNotFailed());
        }

        @Test
        void anIntegrationOrActuatorSettingWithoutItsLibraryFailsStartupNamingIt() {
            application.withClassLoader(new FilteredClassLoader("org.springframework.integration"))
                    .withPropertyValues("redis-lock.integration.lease=10s")
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                            .hasMessageContaining("redis-lock.integration.lease is set but has no effect: Spring Integration"));
            application.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
                    .withPropertyValues("redis-lock.actuator.force-release-enabled=true")
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .hasMessageContaining("redis-lock.actuator.force-release-enabled is set but has no effect: Spring Boot Actuator"));
        }

        @Test
        void switchedOffNothingIsJudged() {
            application.withPropertyValues("redis-lock.enabled=false", "redis-lock.redis.password=secret")
                    .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Locker.class));
        }
    }

    @Nested
    class OnAUrlOfTheirOwn {

        @Test
        void theUrlAndItsTimeoutStartTheLocker() {
            application.withPropertyValues("redis-lock.redis.url=" + url(0), "redis-lock.redis.timeout=2s")
                    .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Locker.class));
        }

        @Test
        void aPasswordBesideTheUrlFailsStartupBecauseTheUrlCarriesItsOwn() {
            application.withPropertyValues("redis-lock.redis.url=" + url(0), "redis-lock.redis.password=secret")
                    .run(failsNaming("redis-lock.redis.password", "redis-lock.redis.url", "carries its own login"));
        }

        @Test
        void sslBesideTheUrlFailsStartupBecauseTheSchemeSaysIt() {
            application.withPropertyValues("redis-lock.redis.url=" + url(0), "redis-lock.redis.ssl=true")
                    .run(failsNaming("redis-lock.redis.ssl", "rediss://"));
        }

        @Test
        void aRedlockTuningFailsStartup() {
            application.withPropertyValues("redis-lock.redis.url=" + url(0), "redis-lock.redlock.node-timeout=1s")
                    .run(failsNaming("redis-lock.redlock.node-timeout", "redis-lock.redis.url"));
        }
    }

    @Nested
    class OnASentinelGroup {

        @Test
        void aRedlockTuningFailsStartup() {
            application.withPropertyValues("redis-lock.redis.sentinel.master=locks", "redis-lock.redis.sentinel.nodes=127.0.0.1:26379",
                    "redis-lock.redlock.retry-delay=1s")
                    .run(failsNaming("redis-lock.redlock.retry-delay", "redis-lock.redis.sentinel.*"));
        }

        @Test
        void aUrlBesideTheSentinelGroupFailsStartupNamingBoth() {
            application.withPropertyValues("redis-lock.redis.sentinel.master=locks", "redis-lock.redis.sentinel.nodes=127.0.0.1:26379",
                    "redis-lock.redis.url=" + url(0))
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .hasMessageContaining("redis-lock.redis.url").hasMessageContaining("redis-lock.redis.sentinel.*"));
        }
    }

    @Nested
    class OnACluster {

        @Test
        void aRedlockTuningFailsStartup() {
            application.withPropertyValues("redis-lock.redis.cluster.nodes=127.0.0.1:7000", "redis-lock.redlock.node-timeout=1s")
                    .run(failsNaming("redis-lock.redlock.node-timeout", "redis-lock.redis.cluster.nodes"));
        }

        @Test
        void replicaSyncFailsStartupBecauseItsWaitWouldCountAnotherMastersReplicas() {
            application.withPropertyValues("redis-lock.redis.cluster.nodes=127.0.0.1:7000", "redis-lock.replica-sync=100ms")
                    .run(replicaSyncFailsOn("redis-lock.redis.cluster.nodes"));
        }

        @Test
        void replicaSyncOnTheApplicationsClusterFailsStartupToo() {
            application.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:7000", "redis-lock.replica-sync=100ms")
                    .run(replicaSyncFailsOn("spring.data.redis.cluster.nodes"));
        }

        private static ContextConsumer<AssertableApplicationContext> replicaSyncFailsOn(String cluster) {
            return context -> assertThat(context).hasFailed().getFailure().rootCause().isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("redis-lock.replica-sync is not for a Redis Cluster (" + cluster + ")");
        }
    }

    @Nested
    class OnRedlockMasters {

        @Test
        void theRedlockSettingsStartTheRedlockLocker() {
            application.withPropertyValues("redis-lock.redlock.nodes=" + masterUrls(), "redis-lock.redlock.node-timeout=1s",
                    "redis-lock.redlock.retry-delay=50ms", "redis-lock.key-prefix=rl:", "redis-lock.watchdog-timeout=5s")
                    .run(context -> assertThat(context).hasNotFailed().hasSingleBean(RedlockLocker.class));
        }

        @Test
        void aUrlOfTheOneRedisFailsStartupBecauseTheMastersReplaceIt() {
            application.withPropertyValues("redis-lock.redlock.nodes=" + masterUrls(), "redis-lock.redis.url=redis://:secret@127.0.0.1:6379")
                    .run(context -> {
                        failsNaming("redis-lock.redis.url", "the Redlock masters replace the one Redis").accept(context);
                        assertThat(context.getStartupFailure()).rootCause().message().doesNotContain("secret");
                    });
        }

        @Test
        void replicaSyncFailsStartupBecauseRedlockDoesNotWaitForReplicas() {
            application.withPropertyValues("redis-lock.redlock.nodes=" + masterUrls(), "redis-lock.replica-sync=100ms")
                    .run(failsNaming("redis-lock.replica-sync", "redis-lock.redlock.nodes", "does not wait for replicas"));
        }

        @Test
        void callerConnectionsFailStartupBecauseRedlockAsksItsMastersTogether() {
            application.withPropertyValues("redis-lock.redlock.nodes=" + masterUrls(), "redis-lock.caller-connections=false")
                    .run(failsNaming("redis-lock.caller-connections", "redis-lock.redlock.nodes", "asks its masters together"));
        }

        @Test
        void theOneRedisTimeoutFailsStartupNamingTheMastersOwn() {
            application.withPropertyValues("redis-lock.redlock.nodes=" + masterUrls(), "redis-lock.redis.timeout=1s")
                    .run(failsNaming("redis-lock.redis.timeout", "redis-lock.redlock.node-timeout"));
        }
    }

    @Test
    void everySettingOfThePropertiesClassIsKnownToTheCheck() {
        Set<String> bound = new TreeSet<>();
        collectSettingNames(RedisLockProperties.class, "", bound);
        assertThat(RedisLockSettingsCheck.knownNames()).containsExactlyInAnyOrderElementsOf(bound);
    }

    /** The dashed names of the bean properties of {@code type}, nested groups (a getter without a setter) recursively. */
    private static void collectSettingNames(Class<?> type, String prefix, Set<String> names) {
        for (PropertyDescriptor property : beanProperties(type)) {
            String dashed = property.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
            if (property.getWriteMethod() != null) {
                names.add(prefix + dashed);
            }
            else if (property.getReadMethod() != null && property.getReadMethod().getReturnType().getName().startsWith(RedisLockProperties.class.getName())) {
                collectSettingNames(property.getReadMethod().getReturnType(), prefix + dashed + ".", names);
            }
        }
    }

    private static PropertyDescriptor[] beanProperties(Class<?> type) {
        try {
            return Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors();
        }
        catch (IntrospectionException e) {
            throw new IllegalStateException(e);
        }
    }
}
