package io.github.redislock.benchmarks.report;

import static io.github.redislock.benchmarks.report.RoundMediansTest.uncontended;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The report of a run in rounds: the tables give the medians with the rounds' range, and the goal check of issue 33
 * compares medians, not the best round of a peer with two variants. Pure Java, no Redis.
 */
class MarkdownReportRoundsTest {

    @Test
    void theRegistryGoalComparesOurMedianWithTheBestOfTheRegistryVariantsMediansNotWithTheirBestRound() {
        List<Row> rows = new ArrayList<>();
        double[][] pairsPerSecond = {{9_000, 9_500, 9_000}, {10_000, 8_000, 9_000}, {11_000, 14_000, 9_000}}; // per round: ours, spin, pub/sub
        for (int round = 1; round <= 3; round++) {
            rows.add(uncontended("redis-lock", 8, round, pairsPerSecond[round - 1][0], 50));
            rows.add(uncontended("registry-spin", 8, round, pairsPerSecond[round - 1][1], 55));
            rows.add(uncontended("registry-pubsub", 8, round, pairsPerSecond[round - 1][2], 45 + round));
        }

        String markdown = report(rows).render();

        assertThat(markdown).contains("the medians of their 3 rounds");
        assertThat(markdown).contains("| uncontended T=8: pairs/s at least RedisLockRegistry's best variant | 10,000 vs registry-spin 9,500 (met in 1 of 3 rounds) | yes |");
        assertThat(markdown).contains("| uncontended T=8: client CPU per pair at most RedisLockRegistry's | 50.0 µs vs registry-pubsub 47.0 µs (met in 0 of 3 rounds) | **no** |");
    }

    @Test
    void aRowOfMediansShowsTheRangeOfItsRoundsBesideItsPairsAndItsCpu() {
        List<Row> rows = List.of(uncontended("redis-lock", 1, 1, 9_000, 50), uncontended("redis-lock", 1, 2, 12_000, 40),
                uncontended("redis-lock", 1, 3, 10_000, 60));

        String markdown = report(rows).render();

        assertThat(markdown).contains("Measured in 3 rounds", "| **redis-lock (this project)** | 1 | 10,000 (9,000-12,000) | 100 | 200 | 50.0 (40.0-60.0) | - | 10.0 (10.0-10.0) |");
    }

    @Test
    void aRunOfOneRoundReadsAsBeforeRounds() {
        String markdown = report(List.of(uncontended("redis-lock", 1, 1, 9_000, 50), uncontended("registry-spin", 1, 1, 8_000, 55))).render();

        assertThat(markdown).contains("| **redis-lock (this project)** | 1 | 9,000 | 100 | 200 | 50.0 | - | 10.0 |",
                "| uncontended T=1: pairs/s at least RedisLockRegistry's best variant | 9,000 vs registry-spin 8,000 | yes |");
        assertThat(markdown).doesNotContain("round");
    }

    @Test
    void anOldAgainstNewRatioLeavesOutARoundThatLacksTheFigure() {
        List<Row> rows = new ArrayList<>();
        double[] oldRedisCpu = {10, Double.NaN, 10}; // round 2 read no Redis CPU for the old commit
        for (int round = 1; round <= 3; round++) {
            rows.add(oldVsNew("redis-lock", round, 12));
            Row old = oldVsNew("redis-lock-baseline", round, oldRedisCpu[round - 1]);
            rows.add(old);
        }

        String markdown = report(rows, "old-vs-new").render();

        assertThat(markdown).contains("| 1 | 10,000 / 10,000 | 1.00x (1.00-1.00) | 50.0 / 50.0 | 1.00x (1.00-1.00) | 10.0 / 12.0 | 1.20x (1.20-1.20) |");
    }

    private static Row oldVsNew(String id, int round, double redisCpuMicros) {
        Row row = uncontended(id, 1, round, 10_000, 50);
        Row copy = new Row("old-vs-new", id, id, 1, 1);
        copy.round = round;
        copy.opsPerSecond = row.opsPerSecond;
        copy.clientCpuMicrosPerOp = row.clientCpuMicrosPerOp;
        copy.redisCpuMicrosPerOp = redisCpuMicros;
        copy.p50Micros = row.p50Micros;
        copy.p99Micros = row.p99Micros;
        return copy;
    }

    private static MarkdownReport report(List<Row> rows, String scenario) {
        RunFacts facts = new RunFacts(ZonedDateTime.parse("2026-11-28T00:00:00Z"), 2, "Linux amd64", "a JDK", "7.0.15", "redis-server from PATH",
                "java -jar lock-benchmarks.jar", "", "durations");
        return new MarkdownReport(facts, List.of(new MarkdownReport.Section(scenario, "old against new", "description")), rows);
    }

    private static MarkdownReport report(List<Row> rows) {
        RunFacts facts = new RunFacts(ZonedDateTime.parse("2026-11-28T00:00:00Z"), 2, "Linux amd64", "a JDK", "7.0.15", "redis-server from PATH",
                "java -jar lock-benchmarks.jar", "", "durations");
        return new MarkdownReport(facts, List.of(new MarkdownReport.Section("uncontended", "1. Uncontended", "description")), rows);
    }
}
