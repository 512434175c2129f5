package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A setting a locker refuses is refused before the locker starts anything: no watchdog, Redlock or other
 * thread of redis-lock's own is left behind by a locker that was never built. Nothing here reaches Redis.
 */
class RefusedSettingStartsNoThreadTest {

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    @AfterEach
    void closeFactories() {
        factories.forEach(LettuceConnectionFactory::destroy);
    }

    @Test
    void aBlankKeyPrefixGivenToTheBuilderStartsNoWatchdog() throws IOException {
        RedisConnectionFactory factory = factory();
        Set<Thread> before = ours();

        assertThatThrownBy(() -> RedisLocker.builder(factory).keyPrefix(" ").build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix (redis-lock.key-prefix) must not be blank, but was ' '");

        assertThat(startedSince(before)).as("threads of redis-lock's own started by the refused builder").isEmpty();
    }

    @Test
    void aBlankKeyPrefixGivenToARedlockLockerStartsNoThread() throws IOException {
        assertRedlockRefusedStartingNoThread(Duration.ofMillis(20), Duration.ofSeconds(1), " ", IllegalArgumentException.class,
                "keyPrefix (redis-lock.key-prefix) must not be blank");
    }

    @Test
    void aWatchdogTimeoutUnder3msGivenToARedlockLockerStartsNoThread() throws IOException {
        assertRedlockRefusedStartingNoThread(Duration.ofMillis(20), Duration.ofMillis(2), "lock:", IllegalArgumentException.class,
                "watchdogTimeout (redis-lock.watchdog-timeout) must be at least 3 ms, but was PT0.002S");
    }

    /** Without the check, a null retry delay failed only the first attempt that found the lock held, deep in its wait. */
    @Test
    void aNullRetryDelayGivenToARedlockLockerIsRefusedByNameBeforeAnyThreadStarts() throws IOException {
        assertRedlockRefusedStartingNoThread(null, Duration.ofSeconds(1), "lock:", NullPointerException.class, "retryDelay");
    }

    private void assertRedlockRefusedStartingNoThread(Duration retryDelay, Duration watchdogTimeout, String keyPrefix, Class<? extends Throwable> refusal,
                                                      String message) throws IOException {
        List<RedisConnectionFactory> masters = List.of(factory(), factory(), factory());
        Set<Thread> before = ours();

        assertThatThrownBy(() -> new RedlockLocker(masters, List.of("a", "b", "c"), Duration.ofMillis(200), retryDelay, watchdogTimeout, keyPrefix,
                event -> { })).isInstanceOf(refusal).hasMessageContaining(message);

        assertThat(startedSince(before)).as("threads of redis-lock's own started by the refused Redlock locker").isEmpty();
    }

    /** A factory on a port nobody listens on: a locker that connected at all would fail, not hang. */
    private RedisConnectionFactory factory() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        factory.afterPropertiesSet();
        factory.start();
        factories.add(factory);
        return factory;
    }

    private static Set<Thread> ours() {
        return Thread.getAllStackTraces().keySet().stream().filter(thread -> thread.getName().startsWith("redis-lock-")).collect(Collectors.toSet());
    }

    private static List<String> startedSince(Set<Thread> before) {
        return ours().stream().filter(thread -> !before.contains(thread)).map(Thread::getName).toList();
    }
}
