package io.github.redislock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * How {@link WithRedisServer} meets a Spring test: the context's Redis properties name the class's
 * server whichever annotation comes first, each class gets a context of its own, and the context is
 * closed before the server stops. The example classes run in the JUnit test kit.
 */
class WithRedisServerSpringContextTest {

    static final Map<String, RunningRedisServer> SERVERS = new ConcurrentHashMap<>();
    static final Map<String, ConfigurableApplicationContext> CONTEXTS = new ConcurrentHashMap<>();

    @BeforeEach
    void forgetEarlierRuns() {
        SERVERS.clear();
        CONTEXTS.clear();
    }

    @Test
    void springFirstThenTheServer() {
        assertPointedAtItsServerAndClosedBeforeItStopped(SpringFirst.class, "SpringFirst");
    }

    @Test
    void theServerFirstThenSpring() {
        assertPointedAtItsServerAndClosedBeforeItStopped(ServerFirst.class, "ServerFirst");
    }

    @Test
    void twoClassesWithTheSameConfigurationGetTwoContexts() {
        EngineExecutionResults results = Examples.run(SpringFirst.class, ServerFirst.class);
        results.testEvents().assertStatistics(stats -> stats.started(2).succeeded(2));

        assertThat(CONTEXTS.get("SpringFirst")).isNotSameAs(CONTEXTS.get("ServerFirst"));
        assertThat(SERVERS.get("SpringFirst").port()).isNotEqualTo(SERVERS.get("ServerFirst").port());
    }

    private static void assertPointedAtItsServerAndClosedBeforeItStopped(Class<?> testClass, String name) {
        EngineExecutionResults results = Examples.run(testClass);
        results.containerEvents().assertStatistics(stats -> stats.failed(0));
        results.testEvents().assertStatistics(stats -> stats.started(1).succeeded(1));

        ConfigurableApplicationContext context = CONTEXTS.get(name);
        assertThat(context.isActive()).as("the context is closed, not left cached on a stopped server").isFalse();
        assertThat(SERVERS.get(name).process().isRunning()).isFalse();
    }

    /** What every example checks: the three properties name the injected server, from our property source. */
    static void recordAndCheck(String name, RunningRedisServer server, Environment environment,
            ConfigurableApplicationContext context) {
        assertThat(environment.getProperty("spring.data.redis.host")).isEqualTo("127.0.0.1");
        assertThat(environment.getProperty("spring.data.redis.port", Integer.class)).isEqualTo(server.port());
        assertThat(environment.getProperty("spring.data.redis.url")).isEqualTo("redis://127.0.0.1:" + server.port());
        assertThat(context.getEnvironment().getPropertySources().precedenceOf(context.getEnvironment().getPropertySources()
                .get(RedisServerContextCustomizer.PROPERTY_SOURCE_NAME))).isZero();
        assertThat(server.command("PING")).isEqualTo("PONG");
        SERVERS.put(name, server);
        CONTEXTS.put(name, context);
    }

    /** The application under test; the examples give it a Redis address elsewhere, as its own configuration might. */
    @Configuration(proxyBeanMethods = false)
    static class Application {
    }

    /** The example's test: whichever annotation comes first, the same checks. */
    abstract static class PointedExample {

        @Autowired
        Environment environment;

        @Autowired
        ConfigurableApplicationContext context;

        @Test
        void pointed(RunningRedisServer server) {
            recordAndCheck(getClass().getSimpleName(), server, environment, context);
        }
    }

    @EnabledIfSystemProperty(named = Examples.PROPERTY, matches = "run")
    @SpringBootTest(classes = Application.class, properties = {"spring.data.redis.host=redis.invalid",
            "spring.data.redis.port=1", "spring.data.redis.url=redis://redis.invalid:1"})
    @WithRedisServer
    static class SpringFirst extends PointedExample {
    }

    @EnabledIfSystemProperty(named = Examples.PROPERTY, matches = "run")
    @WithRedisServer
    @SpringBootTest(classes = Application.class, properties = {"spring.data.redis.host=redis.invalid",
            "spring.data.redis.port=1", "spring.data.redis.url=redis://redis.invalid:1"})
    static class ServerFirst extends PointedExample {
    }
}
