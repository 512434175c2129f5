package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipListener;
import io.github.redislock.core.RedlockLocker;
import io.github.redislock.integration.LockerLockRegistry;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redlock Locker gives no fencing tokens, which a leader's term and the registry's re-entry check are:
 * the leader election and Spring Integration's registry refuse it when built, naming the property, instead
 * of failing at a grant or a nested lock later.
 */
class RedlockLockerRefusedTest {

    static final List<RedisServerProcess> masters = new ArrayList<>();

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();
    private RedlockLocker redlock;

    @BeforeAll
    static void startMasters() {
        for (int i = 0; i < 3; i++) {
            masters.add(TestRedis.startNew());
        }
    }

    @AfterAll
    static void stopMasters() {
        masters.forEach(RedisServerProcess::stop);
        masters.clear();
    }

    @BeforeEach
    void connect() {
        List<RedisConnectionFactory> nodes = new ArrayList<>();
        for (RedisServerProcess master : masters) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(master.host(), master.port()));
            factory.afterPropertiesSet();
            factory.start();
            factories.add(factory);
            nodes.add(factory);
        }
        redlock = new RedlockLocker(nodes, masters.stream().map(RedisServerProcess::redisUri).toList(), Duration.ofMillis(500),
                Duration.ofMillis(20), Duration.ofSeconds(1), "lock:", event -> {
                });
    }

    @AfterEach
    void disconnect() {
        redlock.close();
        factories.forEach(LettuceConnectionFactory::destroy);
    }

    @Test
    void theRegistryRefusesARedlockLockerNamingTheProperty() {
        assertThatThrownBy(() -> new LockerLockRegistry(redlock)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-lock.redlock.nodes").hasMessageContaining("LockerLockRegistry");
    }

    @Test
    void aRegistryThatPicksARedlockLockerForAKeyRefusesToObtainItsLock() {
        LockerLockRegistry registry = new LockerLockRegistry(key -> redlock);
        assertThatThrownBy(() -> registry.obtain("some-key")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-lock.redlock.nodes").hasMessageContaining("'some-key'");
        assertThat(redlock.isLocked("some-key")).isFalse();
    }

    @Test
    void theElectionRefusesARedlockLockerNamingTheProperty() {
        assertThatThrownBy(() -> new LockerLeaderElection(redlock)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis-lock.redlock.nodes");
    }

    @Test
    void anElectionThatPicksARedlockLockerForARoleRefusesToJoinIt() {
        LockerLeaderElection election = new LockerLeaderElection(role -> redlock, event -> {
        });
        try {
            assertThatThrownBy(() -> election.join("some-role", new LeadershipListener() {
                @Override
                public void granted(Candidacy candidacy, long term) {
                }

                @Override
                public void revoked(Candidacy candidacy, long term, String reason) {
                }
            })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis-lock.redlock.nodes").hasMessageContaining("'some-role'");
            assertThat(redlock.isLocked("some-role")).as("no candidacy took the role").isFalse();
        } finally {
            election.close();
        }
    }
}
