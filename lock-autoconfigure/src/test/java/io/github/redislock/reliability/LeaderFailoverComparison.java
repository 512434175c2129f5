package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The long leader-election run, opt-in ({@code -Dtest=LeaderFailoverComparison}, about four minutes):
 * three kinds of candidate side by side in one run, each with a 3 s lease and three instances for at
 * least 60 s of faults on its leader in turn (graceful stop, {@code kill -9}, {@code SIGSTOP} past the
 * lease). The overlap detector watches every kind; ours must show no overlap, no unfenced action of an
 * old leader, and at most one fenced one per pause. The
 * figures go to {@code target/reliability/leader-failover.md} and into docs/leader-election.md.
 */
class LeaderFailoverComparison {

    private static final long LEASE_MILLIS = 3000;
    private static final long RUN_MILLIS = 60_000;
    private static final List<String> KINDS = List.of("ours", "initiator", "peer");

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES) // three kinds of at least 60 s each, and their workers' starts
    void oursAgainstLockRegistryLeaderInitiatorOnBothRegistries() throws Exception {
        RedisServerProcess lockRedis = TestRedis.startNew();
        RedisServerProcess storeRedis = TestRedis.startNew();
        Map<String, List<LeaderElectionRun.Failover>> failovers = new LinkedHashMap<>();
        Map<String, List<String>> violations = new LinkedHashMap<>();
        Map<String, List<String>> stale = new LinkedHashMap<>();
        Map<String, List<String>> fenced = new LinkedHashMap<>();
        Map<String, Integer> pauses = new LinkedHashMap<>();
        Map<String, Long> seconds = new LinkedHashMap<>();
        try {
            for (String kind : KINDS) {
                try (LeaderElectionRun run = new LeaderElectionRun(kind, LEASE_MILLIS, lockRedis, storeRedis).start(3)) {
                    long begin = System.nanoTime();
                    int rounds = 0;
                    while (rounds < 3 || (System.nanoTime() - begin) / 1_000_000 < RUN_MILLIS) {
                        run.gracefulStop();
                        run.kill();
                        run.pause();
                        rounds++;
                    }
                    seconds.put(kind, (System.nanoTime() - begin) / 1_000_000_000);
                    failovers.put(kind, run.failovers());
                    violations.put(kind, run.violations());
                    stale.put(kind, run.staleActions());
                    fenced.put(kind, run.fencedActions());
                    pauses.put(kind, run.pauses());
                }
            }
        } finally {
            lockRedis.stop();
            storeRedis.stop();
        }
        String table = table(failovers, violations, stale, fenced, seconds);
        System.out.println(table);
        Path report = Path.of("target", "reliability", "leader-failover.md");
        Files.createDirectories(report.getParent());
        Files.writeString(report, table);

        assertThat(violations.get("ours")).isEmpty();
        assertThat(stale.get("ours")).isEmpty();
        assertThat(fenced.get("ours")).hasSizeLessThanOrEqualTo(pauses.get("ours"));
    }

    private static String table(Map<String, List<LeaderElectionRun.Failover>> failovers, Map<String, List<String>> violations,
                                Map<String, List<String>> stale, Map<String, List<String>> fenced, Map<String, Long> seconds) {
        StringBuilder out = new StringBuilder("Leader failover, lease 3 s, 3 instances per kind; run at " + Instant.now() + "\n\n");
        out.append("| candidate | run | graceful stop: new leader after (median / max ms) | kill -9: new leader after | SIGSTOP: new leader after"
                + " | SIGSTOP: resumed leader revoked after | overlaps and other violations | old leader's actions: unfenced / fenced by term |\n");
        out.append("|---|---|---|---|---|---|---|---|\n");
        for (String kind : failovers.keySet()) {
            List<LeaderElectionRun.Failover> all = failovers.get(kind);
            out.append("| ").append(kind).append(" | ").append(seconds.get(kind)).append(" s, ").append(all.size()).append(" faults | ")
                    .append(figure(all, "graceful stop", LeaderElectionRun.Failover::toNewLeaderMillis)).append(" | ")
                    .append(figure(all, "kill -9", LeaderElectionRun.Failover::toNewLeaderMillis)).append(" | ")
                    .append(figure(all, "SIGSTOP past the lease", LeaderElectionRun.Failover::toNewLeaderMillis)).append(" | ")
                    .append(figure(all, "SIGSTOP past the lease", LeaderElectionRun.Failover::revokedAfterResumeMillis)).append(" | ")
                    .append(violations.get(kind).size()).append(" | ").append(stale.get(kind).size()).append(" / ")
                    .append(fenced.get(kind).size()).append(" |\n");
        }
        out.append("\nViolations:\n");
        violations.forEach((kind, list) -> list.forEach(v -> out.append("- ").append(kind).append(": ").append(v).append('\n')));
        return out.toString();
    }

    private static String figure(List<LeaderElectionRun.Failover> all, String fault, ToLongFunction<LeaderElectionRun.Failover> value) {
        List<Long> values = new ArrayList<>();
        all.stream().filter(f -> f.fault().equals(fault)).forEach(f -> values.add(value.applyAsLong(f)));
        values.sort(Long::compare);
        return values.isEmpty() ? "-" : values.get(values.size() / 2) + " / " + values.get(values.size() - 1);
    }
}
