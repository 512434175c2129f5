package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.redislock.testsupport.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The startup check of the server version, against the real server under test. No server older
 * than 6.2 is at hand, so the refusal is shown by raising the minimum above the running server's
 * version through the package-private constructor.
 */
class RedisServerVersionCheckTest {

    RedisServerProcess redis = TestRedis.shared();
    LettuceConnectionFactory connectionFactory;

    @BeforeEach
    void connect() {
        connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
        connectionFactory.afterPropertiesSet();
        connectionFactory.start();
    }

    @AfterEach
    void disconnect() {
        connectionFactory.destroy();
    }

    @Test
    void theVersionReadFromHelloIsTheOneInfoServerReports() {
        String version = new RedisServerVersionCheck(connectionFactory).serverVersion();
        assertThat(version).isEqualTo(redis.info("server").get("redis_version"));
    }

    @Test
    void aServerOlderThanTheMinimumFailsTheCheckNamingTheVersionFoundAndTheMinimum() {
        String version = redis.info("server").get("redis_version");
        String[] parts = version.split("\\.");
        String minimum = parts[0] + "." + (Integer.parseInt(parts[1]) + 1) + ".0";
        assertThatThrownBy(() -> new RedisServerVersionCheck(connectionFactory, minimum).afterSingletonsInstantiated())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs Redis " + minimum + " or later")
                .hasMessageContaining("reports version " + version);
    }

    @Test
    void aServerAtTheMinimumPassesTheCheck() {
        String version = redis.info("server").get("redis_version");
        new RedisServerVersionCheck(connectionFactory, version).afterSingletonsInstantiated();
    }

    @Test
    void theAutoConfigurationChecksTheServerAtStartupAndStartsOnASupportedOne() {
        new ApplicationContextRunner()
                .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedisServerVersionCheck.class);
                    assertThat(RedisServerVersionCheck.compare(context.getBean(RedisServerVersionCheck.class).serverVersion(),
                            RedisServerVersionCheck.MINIMUM_VERSION)).isNotNegative();
                });
    }

    @Test
    void anUnreachableServerIsNotCheckedAndDoesNotStopStartup() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        LettuceConnectionFactory unreachable = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", closedPort));
        unreachable.afterPropertiesSet();
        unreachable.start();
        try {
            new RedisServerVersionCheck(unreachable, "99.0.0").afterSingletonsInstantiated();
        } finally {
            unreachable.destroy();
        }
    }

    @Test
    void versionsCompareNumericallyPartByPart() {
        assertThat(RedisServerVersionCheck.compare("6.10.0", "6.2.0")).isPositive();
        assertThat(RedisServerVersionCheck.compare("6.0.20", "6.2.0")).isNegative();
        assertThat(RedisServerVersionCheck.compare("6.2", "6.2.0")).isZero();
        assertThat(RedisServerVersionCheck.compare("7.2.4", "6.2.0")).isPositive();
    }
}
