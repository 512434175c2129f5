package io.github.redislock.core.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The uncontended pair's replies are single integers: {@code acquire.lua} answers the first hold of one free lock with 1
 * (no token drawn), or with its fencing token alone when asked to draw it, and the short release with 0, -1 or -2; every other outcome keeps its table. The client reads both
 * shapes on every way a script reaches Redis: Lettuce's shared connection, a Lettuce connection of its own (a factory that
 * shares none) and Jedis.
 */
class UncontendedRepliesTest {

    private static final long LEASE = 10_000;

    private final RedisServerProcess redis = TestRedis.shared();
    private final LockKeys keys = LockKeys.of(LockerFixture.PREFIX, "replies-" + UUID.randomUUID());
    private final List<LockKeys> group = List.of(keys);
    private DisposableBean factory;
    private LockCommands commands;

    @AfterEach
    void close() throws Exception {
        if (factory != null) {
            factory.destroy();
        }
        redis.command("DEL", keys.name());
    }

    @Test
    void aFirstAcquisitionOfAFreeLockDrawsNoTokenAndRepliesWithOne() {
        Object reply = eval(LockScript.ACQUIRE, keys.name(), Long.toString(LEASE), "owner-a", "0001");

        assertThat(reply).isEqualTo(1L);
        assertThat(redis.command("HGET", keys.name(), "owner-a")).isEqualTo("1");
        assertThat((Long) redis.command("PTTL", keys.name())).isBetween(1L, LEASE);
    }

    @Test
    void aFirstAcquisitionOfAFreeLockAskedToDrawItsTokenRepliesWithItAloneTheRedisClockInMicroseconds() {
        long before = redisMicros();
        Object reply = eval(LockScript.ACQUIRE, keys.name(), Long.toString(LEASE), "owner-a", "0011");
        long after = redisMicros();

        assertThat(reply).isInstanceOf(Long.class);
        assertThat((Long) reply).as("the token: exact, as Redis turns the Lua number into an integer").isBetween(before, after);
        assertThat(redis.command("HGET", keys.name(), "owner-a")).isEqualTo("1");
    }

    @Test
    void aReentryAndABlockedTryKeepTheirTables() {
        eval(LockScript.ACQUIRE, keys.name(), Long.toString(LEASE), "owner-a", "0001");

        assertThat(eval(LockScript.ACQUIRE, keys.name(), Long.toString(LEASE), "owner-a", "0000")).isEqualTo(List.of(1L, 2L, 0L));
        assertThat(eval(LockScript.ACQUIRE, keys.name(), Long.toString(LEASE), "owner-b", "0001")).isInstanceOfSatisfying(List.class,
                blocked -> assertThat(blocked.subList(0, 2)).isEqualTo(List.of(0L, 1L)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "lettuce-own-connection", "jedis"})
    void theClientReadsAFirstHoldsTokenAlone(String client) throws Exception {
        connect(client);
        long before = redisMicros();
        LockCommands.Acquisition first = done(commands.acquireAsync(group, "owner-a", LEASE, new boolean[] {true}, 0, null, false, false, true));
        long after = redisMicros();

        assertThat(first.acquired()).isTrue();
        assertThat(first.holdCounts()).containsExactly(1);
        assertThat(first.tokens()[0]).isBetween(before, after);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "lettuce-own-connection", "jedis"})
    void theClientReadsAFirstHoldWithNoTokenDrawnAsTokenZero(String client) throws Exception {
        connect(client);
        LockCommands.Acquisition first = done(commands.acquireAsync(group, "owner-a", LEASE, new boolean[] {true}, 0, null, false, false, false));

        assertThat(first.acquired()).isTrue();
        assertThat(first.holdCounts()).containsExactly(1);
        assertThat(first.tokens()).containsExactly(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "lettuce-own-connection", "jedis"})
    void theClientReadsTheTablesOfAReentryABlockedTryAndAFullRelease(String client) throws Exception {
        connect(client);
        long token = done(commands.acquireAsync(group, "owner-a", LEASE, new boolean[] {true}, 0, null, false, false, false)).tokens()[0];

        LockCommands.Acquisition reentry = done(commands.acquireAsync(group, "owner-a", LEASE, new boolean[] {false}, 0, null, false, false, false));
        assertThat(reentry.acquired()).isTrue();
        assertThat(reentry.holdCounts()).containsExactly(2);
        LockCommands.Acquisition blocked = done(commands.acquireAsync(group, "owner-b", LEASE, new boolean[] {true}, 0, null, false, false, false));
        assertThat(blocked.acquired()).isFalse();
        assertThat(blocked.blockedIndex()).isZero();
        assertThat(blocked.holderTtlMillis()).isBetween(1L, LEASE);
        assertThat(done(commands.releaseAsync(group, "owner-a", new long[] {LEASE}, new long[] {token}, null, false))).containsExactly(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "lettuce-own-connection", "jedis"})
    void theClientReadsEachShortReleaseAnswer(String client) throws Exception {
        connect(client);
        take("owner-a");
        assertThat(done(releaseTakenUncontended("owner-a"))).as("freed").containsExactly(0);
        assertThat(redis.command("EXISTS", keys.name())).isEqualTo(0L);
        assertThat(done(releaseTakenUncontended("owner-a"))).as("not held").containsExactly(-1);

        take("owner-a");
        redis.command("HSET", keys.name(), "waiters", "1");
        assertThat(done(releaseTakenUncontended("owner-a"))).as("marked by a waiter, then the full release").containsExactly(0);
        assertThat(redis.command("EXISTS", keys.name())).isEqualTo(0L);
    }

    private void connect(String client) {
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(redis.host(), redis.port());
        if (client.equals("jedis")) {
            JedisConnectionFactory jedis = new JedisConnectionFactory(server, JedisClientConfiguration.builder().usePooling().build());
            jedis.afterPropertiesSet();
            jedis.start();
            factory = jedis;
            commands = new LockCommands(jedis, Duration.ofSeconds(30), null, ShardedChannels.classic(), false);
        } else {
            LettuceConnectionFactory lettuce = new LettuceConnectionFactory(server);
            lettuce.setShareNativeConnection(client.equals("lettuce"));
            lettuce.afterPropertiesSet();
            lettuce.start();
            factory = lettuce;
            commands = new LockCommands(lettuce, Duration.ofSeconds(30), null, ShardedChannels.classic(), false);
        }
    }

    private void take(String owner) throws Exception {
        assertThat(done(commands.acquireAsync(group, owner, LEASE, new boolean[] {true}, 0, null, false, false, false)).acquired()).isTrue();
    }

    private CompletableFuture<long[]> releaseTakenUncontended(String owner) {
        return commands.releaseAsync(group, owner, new long[] {0}, new long[1], null, true);
    }

    /** Runs the script's text on one key, as Redis answers it. */
    private Object eval(LockScript script, String... keyAndArgs) {
        String[] command = new String[3 + keyAndArgs.length];
        command[0] = "EVAL";
        command[1] = new String(script.body(), StandardCharsets.UTF_8);
        command[2] = "1";
        System.arraycopy(keyAndArgs, 0, command, 3, keyAndArgs.length);
        return redis.command(command);
    }

    private long redisMicros() {
        List<?> time = (List<?>) redis.command("TIME");
        return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
    }

    private static <T> T done(CompletableFuture<T> reply) throws Exception {
        return reply.get(5, TimeUnit.SECONDS);
    }
}
