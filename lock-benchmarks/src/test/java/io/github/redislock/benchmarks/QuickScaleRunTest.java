package io.github.redislock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The scale scenarios' {@code --quick} form, redis-lock beside Redisson, run once for the class: what
 * each scenario checks of correctness comes out right, and every row has its figures. No figure is
 * asserted; counts that do not depend on timing are.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class QuickScaleRunTest {

    /** --quick: 2 instances x 50 waiters, 1,000 held locks on 2 instances, the cluster at T=8. */
    private static final int WAITERS = 100;

    private String markdown;

    @BeforeAll
    void runTheScaleScenariosQuickly() {
        // --quick's sizes, with shorter windows: the figures are not read, and verify should stay quick; two rounds of waiters and held locks
        markdown = QuickRunTest.runExactly("--quick", "--seconds-per-row=0.5", "--warmup-seconds=0.2", "--jvm-warmup-seconds=0.2", "--held-seconds=1.2",
                "--rounds=2", "--implementations=redis-lock,redisson", "--scenarios=waiters,held-locks,cluster", "--output=none").render();
    }

    @Test
    void everyQueuedWaiterIsServedExactlyOnceAndRedisLockServesThemInQueueOrder() {
        List<String[]> rows = rows("## 5. Waiters", "## 6. Held locks");

        assertThat(rows).hasSize(4).allSatisfy(row -> assertThat(row[13]).as("note").doesNotContain("FAILED", "VIOLATED", "ONLY", "NOT IN"));
        assertThat(rows).allSatisfy(row -> assertThat(row[4]).as("hand-offs/s: the median of the two rounds, their range beside it")
                .matches("[0-9,]+ \\([0-9,]+-[0-9,]+\\)"));
        String[] ours = row(rows, "redis-lock", WAITERS);
        assertThat(new String[] {ours[8], ours[9], ours[12]}).as("served once, out of queue order, violations").containsExactly("100", "0", "0");
        String[] redisson = row(rows, "Redisson", WAITERS);
        assertThat(new String[] {redisson[8], redisson[9], redisson[12]}).containsExactly("100", "- (no queue)", "0");
        assertThat(markdown).contains("| waiters: every one of 100 waiters served once, in queue order, no error | 100 served once, 0 out of queue order | yes |");
    }

    @Test
    void everyHeldLockOutlivesTheHoldAndRedisLockNeedsOneRenewalCallPerTickForFiveHundredLocks() {
        List<String[]> rows = rows("## 6. Held locks", "## 7. Cluster");

        assertThat(rows).hasSize(2).allSatisfy(row -> {
            assertThat(row[14]).as("note").isEmpty();
            String medianOfTwoRounds = "[0-9.,]+ \\([0-9.,]+-[0-9.,]+\\)"; // the median, the rounds' range beside it
            assertThat(row[4]).as("seconds to take them all").matches(medianOfTwoRounds);
            assertThat(row[5]).as("client CPU µs per lock taken").matches(medianOfTwoRounds);
            assertThat(row[6]).as("Redis CPU µs per lock taken").matches(medianOfTwoRounds);
            assertThat(row[7]).as("seconds to release them all").matches(medianOfTwoRounds);
        });
        assertThat(row(rows, "redis-lock", -1)[10]).as("goal: ceil(500 locks per instance / 1,000)").isEqualTo("1");
        assertThat(markdown).as("the goal check reads the median row of the rounds")
                .containsPattern("\\| held locks: at most ceil\\(locks per instance / batch size\\) renewal script calls per tick per instance \\| [^|]+ \\| yes \\|");
    }

    @Test
    void theClusterRowsMeasureBothSetupsAndCountTheMastersEachReleaseMessageReached() {
        List<String[]> rows = rows("## 7. Cluster", "## Goal check");

        assertThat(rows).hasSize(4).allSatisfy(row -> {
            assertThat(row[10]).as("note").doesNotContain("FAILED", "skipped");
            assertThat(row[4]).as("pairs/s").matches("[0-9,]+");
        });
        String[] ours = rows.stream().filter(row -> row[1].contains("redis-lock") && row[2].startsWith("cluster")).findFirst().orElseThrow();
        // a sharded SPUBLISH stays on its master (1.0), a classic PUBLISH reaches every master; the uncontended pairs
        // usually publish nothing, and the row says so
        assertThat(ours[9] + ours[10]).matches("[1-3]\\.[0-9]|-no release message published");
    }

    /** The trimmed cells of every body row of the table under {@code heading}; cell 1 is the implementation. */
    private List<String[]> rows(String heading, String next) {
        return QuickRunTest.tableRows(markdown.substring(markdown.indexOf(heading), markdown.indexOf(next))).stream()
                .map(line -> Arrays.stream(line.split("\\|", -1)).map(String::trim).toArray(String[]::new)).toList();
    }

    /** The row of {@code implementation}, with {@code waiters} in cell 2 unless that is -1. */
    private static String[] row(List<String[]> rows, String implementation, int waiters) {
        return rows.stream().filter(row -> row[1].contains(implementation) && (waiters < 0 || row[2].equals(Integer.toString(waiters))))
                .findFirst().orElseThrow(() -> new AssertionError("No row of " + implementation));
    }
}
