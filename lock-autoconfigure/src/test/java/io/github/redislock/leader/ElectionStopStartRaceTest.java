package io.github.redislock.leader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Candidacy;
import io.github.redislock.LeadershipListener;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.WatchdogState;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockerLeaderElection#stop()} and {@link LockerLeaderElection#start()} called at once from two
 * threads leave the election running (every role has its candidacy thread) or stopped (none has), never
 * some of each: a role stopped behind a start that already counted the election as running would never
 * run again, since the next {@code start()} finds it running.
 */
class ElectionStopStartRaceTest {

    private static final int ROLES = 6;
    private static final int ROUNDS = 20;

    private LockerFixture instance;
    private LockerLeaderElection election;
    private final List<Candidacy> candidacies = new ArrayList<>();
    private final String prefix = "race-role-" + UUID.randomUUID() + "-";

    @BeforeEach
    void joinRoles() {
        instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(3));
        election = new LockerLeaderElection(instance.locker);
        LeadershipListener quiet = new LeadershipListener() {
            @Override
            public void granted(Candidacy candidacy, long term) {
            }

            @Override
            public void revoked(Candidacy candidacy, long term, String reason) {
            }
        };
        for (int i = 0; i < ROLES; i++) {
            candidacies.add(election.join(prefix + i, quiet));
        }
    }

    @AfterEach
    void close() {
        election.close();
        instance.close();
    }

    @Test
    void aStopRacingAStartLeavesEveryRoleRunningOrEveryRoleStopped() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            awaitEveryRoleLeads();
            CountDownLatch go = new CountDownLatch(1);
            CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> {
                awaitQuietly(go);
                election.stop();
            });
            CompletableFuture<Void> start = CompletableFuture.runAsync(() -> {
                awaitQuietly(go);
                Thread.onSpinWait();
                election.start();
            });
            go.countDown();
            CompletableFuture.allOf(stop, start).get(15, TimeUnit.SECONDS);

            List<Integer> threads = candidacyThreadsPerRole();
            assertThat(threads).as("candidacy threads per role after round " + round)
                    .isIn(Collections.nCopies(ROLES, 1), Collections.nCopies(ROLES, 0));
            election.start(); // runs again whatever the race left, unless a stopped role was taken for running
        }
        awaitEveryRoleLeads();
        election.stop();
        assertThat(candidacyThreadsPerRole()).as("candidacy threads after stop() returned").isEqualTo(Collections.nCopies(ROLES, 0));
    }

    /**
     * Whether the race can begin, not what it checks. A leader reads as one only while its lease is not in doubt
     * (renewed within two thirds of it): on a loaded machine a cold JVM granted the roles 12 s after the join, took
     * over 2 s from the lock's confirmation to the grant, and read every role in doubt until the watchdog renewed them.
     */
    private void awaitEveryRoleLeads() {
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(5))
                .untilAsserted(() -> assertThat(candidacies).as(this::leadershipState).allMatch(Candidacy::isLeader, "leads"));
    }

    /**
     * Why a role does not read as leader, should this wait ever time out again (it did once, at load 30, unexplained):
     * not granted ("leading in term" missing), or granted with its lease in doubt (no renewal within two thirds of it).
     */
    private String leadershipState() {
        WatchdogState watchdog = instance.locker.watchdogState();
        return candidacies + "; watchdog: " + watchdog.watchedCount() + " watched, last clean tick "
                + (watchdog.lastRenewal() == null ? "never" : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - watchdog.lastRenewalSentNanos()) + " ms ago")
                + ", " + watchdog.consecutiveFailures() + " failed ticks in a row, " + watchdog.stoppedRenewing() + " locks stopped renewing";
    }

    private List<Integer> candidacyThreadsPerRole() {
        List<Integer> counts = new ArrayList<>();
        for (int i = 0; i < ROLES; i++) {
            String name = "redis-lock-leader-" + prefix + i;
            counts.add((int) Thread.getAllStackTraces().keySet().stream().filter(t -> t.isAlive() && t.getName().equals(name)).count());
        }
        return counts;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
