package io.github.redislock.core.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The future form of every lock script call does in Redis what its blocking form does: over Lettuce's
 * shared connection, without a thread, and over Jedis, on the executor it is given.
 */
class LockCommandsFuturesTest {

    private static final long LEASE = 10_000;

    private LockerFixture fixture;
    private LockCommands commands;
    private LockKeys keys;

    void connect(String client) {
        fixture = client.equals("jedis")
                ? LockerFixture.connectJedis(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(30))
                : LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(30));
        commands = fixture.commands;
        keys = LockKeys.of(LockerFixture.PREFIX, "futures-" + UUID.randomUUID());
    }

    @AfterEach
    void close() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "jedis"})
    void aFairLockIsTakenAndFreedByTheFutureForms(String client) throws Exception {
        connect(client);
        LockCommands.Acquisition taken = done(commands.acquireAsync(LockKind.FAIR, keys, "owner-a", LEASE, 0, true, false));
        assertThat(taken.acquired()).isTrue();
        assertThat(commands.holdCount(keys, "owner-a")).isEqualTo(1);

        assertThat(done(commands.releaseAsync(LockKind.FAIR, keys, "owner-a", LEASE))).as("holds left").isZero();
        assertThat(commands.exists(keys)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "jedis"})
    void aWaiterLeavesAFairQueueByTheFutureForm(String client) throws Exception {
        connect(client);
        assertThat(done(commands.acquireAsync(LockKind.FAIR, keys, "owner-a", LEASE, 0, true, false)).acquired()).isTrue();
        assertThat(done(commands.acquireAsync(LockKind.FAIR, keys, "owner-b", LEASE, LEASE, true, false)).acquired()).isFalse();
        assertThat(fixture.redis.opsForList().range(keys.queue(), 0, -1)).containsExactly("owner-b");

        done(commands.leaveFairQueueAsync(keys, "owner-b"));
        assertThat(fixture.redis.opsForList().range(keys.queue(), 0, -1)).isEmpty();
        done(commands.releaseAsync(LockKind.FAIR, keys, "owner-a", LEASE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "jedis"})
    void aReadLockIsTakenAndFreedByTheFutureForms(String client) throws Exception {
        connect(client);
        LockCommands.Acquisition read = done(commands.acquireAsync(LockKind.READ, keys, "owner-a", LEASE, 0, true, true));
        assertThat(read.acquired()).isTrue();
        assertThat(done(commands.acquireAsync(LockKind.WRITE, keys, "owner-b", LEASE, 0, true, true)).acquired())
                .as("a writer while a reader holds it").isFalse();

        assertThat(done(commands.releaseAsync(LockKind.READ, keys, "owner-a", 0))).as("reads left").isZero();
        assertThat(commands.exists(keys)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"lettuce", "jedis"})
    void aHandOffIsConfirmedWithTheLongerLeaseByTheFutureForm(String client) throws Exception {
        connect(client);
        assertThat(done(commands.acquireAsync(LockKind.FAIR, keys, "owner-a", 1_000, 0, true, false)).acquired()).isTrue();

        assertThat(done(commands.confirmHandOffAsync(keys, "owner-a", LEASE, 1_000, null))).isTrue();
        assertThat(fixture.redis.getExpire(keys.name(), TimeUnit.MILLISECONDS)).as("ms the lock lives now").isGreaterThan(5_000);
        assertThat(done(commands.confirmHandOffAsync(keys, "owner-b", LEASE, 1_000, null))).as("for an owner that does not hold it").isFalse();
        done(commands.releaseAsync(LockKind.FAIR, keys, "owner-a", LEASE));
    }

    private static <T> T done(CompletableFuture<T> future) throws Exception {
        return future.get(10, TimeUnit.SECONDS);
    }
}
