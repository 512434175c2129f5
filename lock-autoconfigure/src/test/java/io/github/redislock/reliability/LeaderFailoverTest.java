package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Our leader election across three JVMs, one fault of each kind on its leader: the role moves on as
 * fast as the fault allows, never to two instances at once, in rising terms, and a leader resumed
 * after a pause past its lease does not start an action on its old term (one the pause caught
 * between its leadership check and its write goes out, and its term fences it). The long run with every kind side by side
 * is {@link LeaderFailoverComparison}.
 */
class LeaderFailoverTest {

    private static final long LEASE_MILLIS = 3000;

    private static RedisServerProcess lockRedis;
    private static RedisServerProcess storeRedis;

    @BeforeAll
    static void startRedis() {
        lockRedis = TestRedis.startNew();
        storeRedis = TestRedis.startNew();
    }

    @AfterAll
    static void stopRedis() {
        lockRedis.stop();
        storeRedis.stop();
    }

    @Test
    void theRoleMovesOnAfterAStopAKillAndAPauseWithoutOverlapInRisingTerms() throws Exception {
        try (LeaderElectionRun run = new LeaderElectionRun("ours", LEASE_MILLIS, lockRedis, storeRedis).start(3)) {
            LeaderElectionRun.Failover stop = run.gracefulStop();
            LeaderElectionRun.Failover kill = run.kill();
            LeaderElectionRun.Failover pause = run.pause();
            System.out.println("Leader failover (ours, lease " + LEASE_MILLIS + " ms): " + run.failovers());

            assertThat(stop.toNewLeaderMillis()).as("a graceful stop hands the role over in the queue").isLessThan(1000);
            assertThat(kill.toNewLeaderMillis()).as("a killed leader's role is free within the lease").isBetween(LEASE_MILLIS / 3, LEASE_MILLIS + 1000);
            assertThat(pause.toNewLeaderMillis()).isLessThan(LEASE_MILLIS + 1000);
            assertThat(pause.revokedAfterResumeMillis()).as("revoked within one watchdog tick of resuming").isLessThan(LEASE_MILLIS / 3 + 500);
            assertThat(run.violations()).as("overlaps, terms not rising, actions after revocation").isEmpty();
            assertThat(run.staleActions()).as("actions of an old leader that its term would not fence").isEmpty();
            assertThat(run.fencedActions()).as("at most the one action a pause caught between its check and its write").hasSizeLessThanOrEqualTo(1);
        }
    }
}
