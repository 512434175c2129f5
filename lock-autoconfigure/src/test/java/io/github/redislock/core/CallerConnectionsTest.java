package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.connection.CallerConnections;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A blocking lock's scripts go on a connection of the calling thread's own (issue 33: no event-loop hop; that they do,
 * and only then, {@link TestPathSwitchTest} checks), and that connection keeps every promise Lettuce's shared one kept:
 * the factory's database and login, the order of a thread's commands when a reply came too late, a server that closed
 * it while idle, a stopped factory.
 */
class CallerConnectionsTest {

    @Test
    void aReplyThatCameTooLateIsReadBeforeTheThreadsNextReply() {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30), Duration.ofMillis(300))) {
            instance.locker.lock("warm-up"); // the scripts loaded: a late EVALSHA runs, not fails with NOSCRIPT
            instance.locker.unlock("warm-up");
            instance.locker.lock("first");
            redis.pause();
            try {
                assertThatThrownBy(() -> instance.locker.unlock("first")).isInstanceOf(LockRedisException.class)
                        .hasMessageContaining(instance.redisKey("first"));
            } finally {
                redis.resume();
            }

            assertThat(instance.locker.tryLock("second")).as("the next call's own reply, not the unlock's").isTrue();
            assertThat(instance.redis.hasKey(instance.redisKey("first"))).as("the late unlock ran, before the next call").isFalse();
            assertThat(instance.redis.opsForHash().get(instance.redisKey("second"), instance.locker.currentOwner())).isEqualTo("1");
            instance.locker.unlock("second");
            assertThat(instance.redis.hasKey(instance.redisKey("second"))).isFalse();
        }
    }

    @Test
    void aConnectionTheServerClosedWhileIdleIsReplacedBeforeTheNextCall() throws InterruptedException {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            instance.locker.lock("kept-open");
            instance.locker.unlock("kept-open");

            redis.command("CLIENT", "KILL", "TYPE", "normal");
            Thread.sleep(CallerConnections.IDLE_CHECK.toMillis()); // not a wait for anything: what the rule is about, an idle connection

            instance.locker.lock("after-the-kill");
            assertThat(instance.redis.hasKey(instance.redisKey("after-the-kill"))).isTrue();
            instance.locker.unlock("after-the-kill");
            assertThat(instance.redis.hasKey(instance.redisKey("after-the-kill"))).isFalse();
        }
    }

    @Test
    void theCallersConnectionLogsInAsTheFactoryAndUsesItsDatabase() {
        try (RedisServerProcess redis = RedisServerProcess.start()) {
            redis.command("ACL", "SETUSER", "locker", "on", ">change-me", "~*", "&*", "+@all");
            RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(redis.host(), redis.port());
            server.setUsername("locker");
            server.setPassword("change-me");
            server.setDatabase(3);
            LettuceConnectionFactory factory = new LettuceConnectionFactory(server, LettuceClientConfiguration.builder().clientName("orders").build());
            factory.afterPropertiesSet();
            factory.start();
            try (RedisLocker locker = RedisLocker.builder(factory).keyPrefix(LockerFixture.PREFIX).build()) {
                locker.lock("in-database-3");

                assertThat(clientsWhoseLastCommandWas(redis, "evalsha")).allSatisfy(client -> assertThat(client).contains("db=3", "user=locker", "name=orders"));
                locker.unlock("in-database-3");
            } finally {
                factory.destroy();
            }
        }
    }

    @Test
    void aStoppedFactoryFailsABlockingLockAsLettuceDoes() {
        try (RedisServerProcess redis = RedisServerProcess.start();
             LockerFixture instance = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30))) {
            instance.locker.lock("before-the-stop");
            instance.locker.unlock("before-the-stop");

            ((LettuceConnectionFactory) instance.connectionFactory).stop();

            assertThatThrownBy(() -> instance.locker.tryLock("after-the-stop")).isInstanceOf(RuntimeException.class);
            ((LettuceConnectionFactory) instance.connectionFactory).start();
            assertThat(instance.redis.hasKey(instance.redisKey("after-the-stop"))).isFalse();
        }
    }

    /** Each client whose last command was {@code command} (lower case, as CLIENT LIST names it), as CLIENT LIST describes it, its id first. */
    static Set<String> clientsWhoseLastCommandWas(RedisServerProcess redis, String command) {
        return Arrays.stream(String.valueOf(redis.command("CLIENT", "LIST")).split("\n")).filter(line -> line.contains(" cmd=" + command + " "))
                .collect(Collectors.toCollection(HashSet::new));
    }
}
