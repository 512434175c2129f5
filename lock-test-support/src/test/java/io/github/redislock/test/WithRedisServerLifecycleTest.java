package io.github.redislock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.TestClassOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * What {@link WithRedisServer} starts and stops, seen from outside: each example class below is run by
 * the JUnit test kit, records the server it was given, and after the run the server must be gone.
 */
class WithRedisServerLifecycleTest {

    /** Servers the example classes were given, by the recording test's name. */
    static final Map<String, RunningRedisServer> SEEN = new ConcurrentHashMap<>();
    /** Pids of those servers while they ran. */
    static final List<Long> PIDS = new CopyOnWriteArrayList<>();

    @BeforeEach
    void forgetEarlierRuns() {
        SEEN.clear();
        PIDS.clear();
    }

    @Test
    void theServerAnswersDuringTheClassAndIsGoneAfterItsAfterAll() throws IOException {
        succeeds(Examples.run(OneServer.class), 2);

        RunningRedisServer server = SEEN.get("method");
        assertThat(server).isNotNull();
        assertThat(SEEN.get("constructor")).isSameAs(server);
        assertThat(PIDS).hasSize(2).containsOnly(PIDS.get(0));
        assertThat(ProcessHandle.of(PIDS.get(0)).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(server.process().isRunning()).isFalse();
        assertThatThrownBy(() -> connect(server.port())).isInstanceOf(ConnectException.class);
    }

    @Test
    void nestedClassesShareTheEnclosingClassesServerUntilItsEnd() throws IOException {
        succeeds(Examples.run(WithNestedClasses.class), 3);

        RunningRedisServer outer = SEEN.get("outer");
        assertThat(SEEN.get("first nested")).isSameAs(outer);
        // The first nested class's afterAll ran before this one: it must not have stopped the server.
        assertThat(SEEN.get("second nested")).isSameAs(outer);
        assertThat(outer.process().isRunning()).isFalse();
        assertThatThrownBy(() -> connect(outer.port())).isInstanceOf(ConnectException.class);
    }

    @Test
    void twoClassesGetTwoServers() {
        EngineExecutionResults results = Examples.run(OneServer.class, AnotherServer.class);
        succeeds(results, 3);

        assertThat(SEEN.get("another").port()).isNotEqualTo(SEEN.get("method").port());
        assertThat(SEEN.get("another").process().isRunning()).isFalse();
    }

    @Test
    void theExtensionWithoutTheAnnotationIsRefusedNamingTheClass() {
        EngineExecutionResults results = Examples.run(ExtensionWithoutAnnotation.class);

        results.containerEvents().assertStatistics(stats -> stats.failed(1));
        Throwable failure = results.containerEvents().failed().stream().findFirst().orElseThrow()
                .getPayload(TestExecutionResult.class).orElseThrow().getThrowable().orElseThrow();
        assertThat(failure).isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining(ExtensionWithoutAnnotation.class.getName())
                .hasMessageContaining("@WithRedisServer");
    }

    private static void succeeds(EngineExecutionResults results, int tests) {
        results.containerEvents().assertStatistics(stats -> stats.failed(0));
        results.testEvents().assertStatistics(stats -> stats.started(tests).succeeded(tests));
    }

    private static void connect(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        }
    }

    private static void record(String name, RunningRedisServer server) {
        assertThat(server.command("PING")).isEqualTo("PONG");
        SEEN.put(name, server);
        PIDS.add(server.process().pid());
    }

    @EnabledIfSystemProperty(named = Examples.PROPERTY, matches = "run")
    @WithRedisServer
    static class OneServer {

        OneServer(RunningRedisServer server) {
            SEEN.put("constructor", server);
        }

        @Test
        void method(RunningRedisServer server) {
            record("method", server);
        }

        @Test
        void again(RunningRedisServer server) {
            record("method", server);
        }
    }

    @EnabledIfSystemProperty(named = Examples.PROPERTY, matches = "run")
    @WithRedisServer
    static class AnotherServer {

        @Test
        void another(RunningRedisServer server) {
            record("another", server);
        }
    }

    @EnabledIfSystemProperty(named = Examples.PROPERTY, matches = "run")
    @WithRedisServer
    @TestClassOrder(ClassOrderer.OrderAnnotation.class)
    static class WithNestedClasses {

        @Test
        void outer(RunningRedisServer server) {
            record("outer", server);
        }

        @Nested
        @Order(1)
        class FirstNested {

            @Test
            void first(RunningRedisServer server) {
                record("first nested", server);
            }
        }

        @Nested
        @Order(2)
        class SecondNested {

            @Test
            void second(RunningRedisServer server) {
                record("second nested", server);
            }
        }
    }

    @EnabledIfSystemProperty(named = Examples.PROPERTY, matches = "run")
    @ExtendWith(RedisServerExtension.class)
    static class ExtensionWithoutAnnotation {

        @Test
        void neverRuns() {
            throw new AssertionError("the class should have been refused");
        }
    }
}
