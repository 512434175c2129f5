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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The final release of a plain hold its first try took sends the lock hash and the owner only ({@code release.lua}'s short
 * release); a waiter that marked the lock meanwhile makes it change nothing, and the full release that follows hands the lock on.
 */
class ShortReleaseTest {

    private static final long LEASE = 10_000;

    private final RedisServerProcess redis = TestRedis.shared();
    private LockerFixture fixture;
    private LockCommands commands;
    private LockKeys keys;
    private List<LockKeys> group;

    @BeforeEach
    void connect() {
        fixture = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(30));
        commands = fixture.commands;
        keys = LockKeys.of(LockerFixture.PREFIX, "short-" + UUID.randomUUID());
        group = List.of(keys);
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void freesALockNobodyWaitedFor() throws Exception {
        take("owner-a");

        assertThat(done(releaseTakenUncontended("owner-a"))).containsExactly(0);
        assertThat(redis.command("EXISTS", keys.name())).isEqualTo(0L);
    }

    @Test
    void answersNotHeldForALockAnotherOwnerTookAfterTheLeaseRanOut() throws Exception {
        take("owner-b");

        assertThat(done(releaseTakenUncontended("owner-a"))).containsExactly(-1);
        assertThat(redis.command("HGET", keys.name(), "owner-b")).as("the other owner's hold").isEqualTo("1");
    }

    /** -2: the owner's, the full release follows; -1: not the owner's, as the full release would answer. */
    @ParameterizedTest(name = "{0}''s lock, released by {1}: {2}")
    @CsvSource({"owner-a, owner-a, -2", "owner-b, owner-a, -1"})
    void changesNothingWhenAWaiterMarkedTheLock(String holder, String releaser, long answer) throws Exception {
        take(holder);
        redis.command("HSET", keys.name(), "waiters", "1");

        Object reply = redis.command("EVAL", new String(LockScript.RELEASE.body(), StandardCharsets.UTF_8), "1", keys.name(), releaser);

        assertThat(reply).isEqualTo(answer);
        assertThat(redis.command("HGETALL", keys.name())).isEqualTo(List.of(holder, "1", "waiters", "1"));
    }

    @Test
    void aWaiterThatQueuedDuringTheHoldGetsTheLockFromTheFullReleaseThatFollows() throws Exception {
        take("owner-a");
        String member = LockCommands.queueMember(LockCommands.inboxField(LockerFixture.PREFIX + "inbox"), "1:owner-b", LEASE);
        assertThat(done(commands.acquireAsync(group, "owner-b", LEASE, new boolean[] {true}, LEASE, member, false, true, false)).acquired()).isFalse();

        assertThat(done(releaseTakenUncontended("owner-a"))).containsExactly(0);
        assertThat(redis.command("HGET", keys.name(), "owner-b")).as("handed to the queued waiter").isEqualTo("1");
        assertThat(redis.command("HEXISTS", keys.name(), "owner-a")).isEqualTo(0L);
        redis.command("DEL", keys.name());
    }

    private void take(String owner) throws Exception {
        assertThat(done(commands.acquireAsync(group, owner, LEASE, new boolean[] {true}, 0, null, false, false, false)).acquired()).isTrue();
    }

    private CompletableFuture<long[]> releaseTakenUncontended(String owner) {
        return commands.releaseAsync(group, owner, new long[] {0}, new long[1], null, true);
    }

    private static <T> T done(CompletableFuture<T> reply) throws Exception {
        return reply.get(5, TimeUnit.SECONDS);
    }
}
