package io.github.redislock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisBinary;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The startup check of the server's kind and version: against the real server under test (Redis or
 * Valkey, whichever leg of the server matrix runs), and against recorded {@code HELLO} and
 * {@code INFO server} answers of the servers at hand nowhere here: an old Redis, Valkey 9, Redis 8.
 * No server older than the minimum is at hand, so the refusal of the real one is shown by raising the
 * minimum above its version through the package-private constructor.
 */
class RedisServerVersionCheckTest {

    static final String WHERE = "the application's Redis (spring.data.redis.*)";

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
    void theKindAndVersionReadFromHelloAreTheOnesInfoServerReports() {
        RedisServerIdentity fromInfo = RedisServerIdentity.fromInfo(redis.info("server"));
        assertThat(RedisServerVersionCheck.serverIdentity(connectionFactory)).isEqualTo(fromInfo);
    }

    @Test
    void theServerUnderTestIsRedisOrValkeyAsItsBinaryIs() {
        assertThat(RedisServerVersionCheck.serverIdentity(connectionFactory).kind())
                .isEqualTo(RedisBinary.isValkey() ? RedisServerIdentity.VALKEY : RedisServerIdentity.REDIS);
    }

    @Test
    void aServerOlderThanTheMinimumOfItsKindFailsTheCheckNamingItsKindItsVersionAndTheMinimum() {
        RedisServerIdentity identity = RedisServerIdentity.fromInfo(redis.info("server"));
        String[] parts = identity.version().split("\\.");
        String minimum = parts[0] + "." + (Integer.parseInt(parts[1]) + 1) + ".0";
        RedisServerVersionCheck check = new RedisServerVersionCheck(Map.of(WHERE, connectionFactory), Map.of(identity.kind(), minimum));
        assertThatThrownBy(check::afterSingletonsInstantiated)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs " + new RedisServerIdentity(identity.kind(), minimum) + " or later")
                .hasMessageContaining(WHERE + " is " + identity);
    }

    @Test
    void aServerAtTheMinimumOfItsKindPassesTheCheck() {
        RedisServerIdentity identity = RedisServerIdentity.fromInfo(redis.info("server"));
        new RedisServerVersionCheck(Map.of(WHERE, connectionFactory), Map.of(identity.kind(), identity.version()))
                .afterSingletonsInstantiated();
    }

    @Test
    void theAutoConfigurationChecksTheServerAtStartupAndStartsOnASupportedOne() {
        new ApplicationContextRunner()
                .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port())
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(RedisServerVersionCheck.class);
                    assertThat(context.getBean(RedisServerVersionCheck.class).servers()).containsExactly(WHERE);
                });
    }

    @Test
    void valkey8IsValkeyByItsOwnVersionNotTheRedisVersionItIsCompatibleWith() {
        RedisServerIdentity fromHello = RedisServerIdentity.fromHello(Map.of("server", "valkey", "version", "8.0.1", "proto", "2"));
        RedisServerIdentity fromInfo = RedisServerIdentity.fromInfo(
                Map.of("redis_version", "7.2.4", "server_name", "valkey", "valkey_version", "8.0.1"));
        assertThat(fromHello).isEqualTo(new RedisServerIdentity("valkey", "8.0.1")).isEqualTo(fromInfo);
        assertThat(fromHello).hasToString("Valkey 8.0.1");
        new RedisServerVersionCheck(Map.of()).check(fromHello, WHERE);
    }

    @Test
    void aFutureValkey9PassesTheCheck() {
        RedisServerIdentity valkey9 = RedisServerIdentity.fromHello(Map.of("server", "valkey", "version", "9.0.0"));
        assertThat(valkey9).hasToString("Valkey 9.0.0");
        new RedisServerVersionCheck(Map.of()).check(valkey9, WHERE);
        new RedisServerVersionCheck(Map.of()).check(RedisServerIdentity.fromInfo(
                Map.of("redis_version", "7.2.4", "server_name", "valkey", "valkey_version", "9.0.0")), WHERE);
    }

    @Test
    void aFutureRedis8PassesTheCheck() {
        RedisServerIdentity redis8 = RedisServerIdentity.fromHello(Map.of("server", "redis", "version", "8.0.2"));
        assertThat(redis8).isEqualTo(RedisServerIdentity.fromInfo(Map.of("redis_version", "8.0.2"))).hasToString("Redis 8.0.2");
        new RedisServerVersionCheck(Map.of()).check(redis8, WHERE);
    }

    @Test
    void aRedisOlderThan62FailsTheCheckNamingRedisItsVersionAndTheMinimum() {
        RedisServerIdentity redis60 = RedisServerIdentity.fromInfo(Map.of("redis_version", "6.0.20"));
        assertThatThrownBy(() -> new RedisServerVersionCheck(Map.of()).check(redis60, WHERE))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("redis-lock needs Redis 6.2.0 or later, but " + WHERE + " is Redis 6.0.20; upgrade the server");
    }

    @Test
    void aValkeyIsNeverComparedWithTheRedisMinimum() {
        RedisServerVersionCheck check = new RedisServerVersionCheck(Map.of(),
                Map.of(RedisServerIdentity.REDIS, "9.0.0", RedisServerIdentity.VALKEY, "7.2.0"));
        check.check(new RedisServerIdentity("valkey", "8.0.1"), WHERE);
        assertThatThrownBy(() -> check.check(new RedisServerIdentity("redis", "8.0.2"), WHERE))
                .hasMessageContaining("needs Redis 9.0.0 or later");
    }

    @Test
    void aServerOfAnotherKindIsNotRefused() {
        new RedisServerVersionCheck(Map.of()).check(RedisServerIdentity.fromHello(Map.of("server", "keydb", "version", "1.0.0")), WHERE);
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
            new RedisServerVersionCheck(Map.of(WHERE, unreachable), Map.of(RedisServerIdentity.REDIS, "99.0.0",
                    RedisServerIdentity.VALKEY, "99.0.0")).afterSingletonsInstantiated();
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
