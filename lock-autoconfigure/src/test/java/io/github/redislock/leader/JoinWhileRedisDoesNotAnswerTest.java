package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Candidacy;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * Joining an election needs no answer from Redis: a candidacy waits for its role's lock on its own thread and tries
 * again while Redis is slow or unreachable, so a join at startup on a loaded machine, or while Redis restarts, does
 * not fail the application. Only a role that is no valid key is refused at the join, and that needs no Redis call.
 *
 * <p>Fails on 3a27e4b: the join checked the key with {@code isLocked(role)}, a Redis call, and threw
 * "LockRedisException: Redis command for lock ... failed: RedisCommandTimeoutException: Command timed out after
 * 500 millisecond(s)"; seen in
 * {@code LeaderFailoverTest} at load 40, whose worker died at startup on "EXISTS. Command timed out after 2 second(s)".
 */
class JoinWhileRedisDoesNotAnswerTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    private final String role = "role-" + UUID.randomUUID();

    @Test
    void aJoinWhileRedisDoesNotAnswerReturnsAndTheCandidacyLeadsOnceRedisAnswers() throws Exception {
        try (RedisServerProcess server = TestRedis.startNew();
             LockerFixture instance = LockerFixture.connect(server.host(), server.port(), Duration.ofSeconds(1), COMMAND_TIMEOUT)) {
            LockerLeaderElection election = new LockerLeaderElection(instance.locker);
            // Connected first: a connection opened while Redis is paused may take Lettuce's 10 s connect timeout to fail.
            try (AutoCloseable pubSubOpen = Internals.join(instance.locker, "lock:{lock:" + role + "-other}:released")) {
                assertThat(instance.locker.isLocked(role)).isFalse();
                CountDownLatch granted = new CountDownLatch(1);
                Candidacy candidacy;
                server.pause();
                try {
                    candidacy = election.join(role, LeaseInDoubtAcrossWallClockStepsTest.grantsTo(granted));
                    TimeUnit.MILLISECONDS.sleep(COMMAND_TIMEOUT.toMillis() + 200); // the candidacy's first wait fails meanwhile
                    assertThat(candidacy.isLeader()).as("leading while Redis does not answer").isFalse();
                } finally {
                    server.resume();
                }

                assertThat(granted.await(10, TimeUnit.SECONDS)).as("granted once Redis answers").isTrue();
                assertThat(candidacy.isLeader()).isTrue();
            } finally {
                election.close();
            }
        }
    }
}
