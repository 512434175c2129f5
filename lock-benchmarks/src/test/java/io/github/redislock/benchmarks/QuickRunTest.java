package io.github.redislock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.report.MarkdownReport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests the harness, not the speed: a quick run on a real redis-server produces its tables, sees no
 * mutual-exclusion violation in correct locks, and writes its report without losing the hand-written
 * parts of the file. No figure is asserted.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class QuickRunTest {

    /**
     * Far shorter than {@code --quick}: enough to exercise every code path, too short for any figure to mean something.
     * The renewal lease is 2 s, and the locks are held longer, so they outlive it only renewed: a 0.6 s lease lost all
     * 20 locks of the renewal row on a loaded machine, where the harness's {@code System.gc()} after taking them
     * stopped this JVM for 938 ms.
     */
    private static final List<String> SHORT = List.of("--seconds-per-row=0.4", "--warmup-seconds=0.2", "--jvm-warmup-seconds=0.2",
            "--renewal-seconds=2.5", "--renewal-locks=20", "--renewal-watchdog-seconds=2", "--threads=1,4",
            "--contended-threads=4", "--instances=2", "--jmh-warmup-iterations=1", "--jmh-iterations=2", "--jmh-iteration-seconds=0.2",
            "--waiter-instances=2", "--waiters-per-instance=5", "--held-locks=20", "--held-instances=2", "--held-seconds=2.5",
            "--cluster-threads=2");

    @Test
    void aQuickRunPrintsEveryScenarioTableAndSeesNoViolation(@TempDir Path dir) throws IOException {
        Path report = dir.resolve("benchmarks.md");
        MarkdownReport result = run("--implementations=redis-lock,naive,ceiling", "--output=" + report);
        String markdown = result.render();

        assertThat(markdown).contains("## 1. Uncontended", "## 2. Contended", "## 3. Renewal", "## 4. Annotation overhead", "## 5. Waiters",
                "## 6. Held locks", "## 7. Cluster", "## Goal check");
        assertThat(markdown).contains("| **redis-lock (this project)** | 1 |", "| naive SET NX PX (Lettuce) | 4 |", "| ceiling: lock scripts via Lettuce async |",
                "| redis-lock's scripts alone (Lettuce sync, no library code) | 4 |", "| redis-lock: `@DistributedLock` method | 2 |", "| no Redis: the proxy hop (do-nothing interceptor) | 0 |");
        assertThat(markdown).doesNotContain("FAILED", "VIOLATED");
        assertThat(contendedViolations(markdown)).containsOnly("0").hasSize(4);
    }

    @Test
    void theAnnotationScenarioTimesBothAnnotationsAndTheirHandWrittenCallsAfterSeeingThemLock() {
        String markdown = run("--implementations=redis-lock,lock4j", "--scenarios=annotation", "--output=none").render();

        String table = markdown.substring(markdown.indexOf("## 4. Annotation overhead"), markdown.indexOf("## Goal check"));
        assertThat(table).contains("| redis-lock: `Locker.lock` + `unlock` around the body | 2 |", "| redis-lock: `@DistributedLock` method | 2 |",
                "| lock4j: `LockTemplate.lock` + `releaseLock` around the body | 2 |", "| lock4j: `@Lock4j` method | 2 |",
                "| no Redis: the `@DistributedLock` advice's work besides the `Locker` calls | 0 |", "`@DistributedLock` minus `Locker` by hand, end to end: ");
        assertThat(table).doesNotContain("FAILED");
        assertThat(tableRows(table)).hasSize(6).allSatisfy(row -> assertThat(row.split("\\|")[3].trim()).matches("[0-9.,]+"));
        assertThat(markdown).containsPattern("\\| annotation overhead under 5 µs per call \\| advice's own work [0-9.]+ ± ");
    }

    @Test
    void rewritingTheReportKeepsTheHandWrittenPartsAroundTheGeneratedOne(@TempDir Path dir) throws IOException {
        Path report = dir.resolve("benchmarks.md");
        Files.writeString(report, "# Title\n\nintro\n\n" + MarkdownReport.BEGIN + "\nold tables\n" + MarkdownReport.END + "\n\n## Analysis\n\nkept\n");

        run("--implementations=redis-lock", "--scenarios=uncontended", "--threads=2", "--output=" + report);

        String written = Files.readString(report);
        assertThat(written).startsWith("# Title\n\nintro\n\n" + MarkdownReport.BEGIN).endsWith(MarkdownReport.END + "\n\n## Analysis\n\nkept\n");
        assertThat(written).doesNotContain("old tables").contains("| **redis-lock (this project)** | 2 |");
    }

    @Test
    void aRunInRoundsReportsTheMediansOfItsRoundsWithTheirRange() {
        String markdown = run("--implementations=redis-lock,naive", "--scenarios=uncontended,contended", "--threads=2", "--rounds=2",
                "--output=none").render();

        String uncontended = markdown.substring(markdown.indexOf("## 1. Uncontended"), markdown.indexOf("## 2. Contended"));
        assertThat(uncontended).contains("Measured in 2 rounds");
        assertThat(tableRows(uncontended)).hasSize(2).allSatisfy(row -> assertThat(row).matches("\\| .* \\| 2 \\| [0-9,]+ \\([0-9,]+-[0-9,]+\\) \\|.*"));
        assertThat(contendedViolations(markdown)).containsOnly("0").hasSize(4);
        assertThat(markdown).doesNotContain("FAILED", "VIOLATED").contains("the medians of their 2 rounds");
    }

    @Test
    void anUnknownImplementationIsRejectedByName() {
        assertThatThrownBy(() -> BenchmarkOptions.parse("--implementations=redis-lock,hazelcast"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'hazelcast'").hasMessageContaining("redisson");
    }

    private static MarkdownReport run(String... extra) {
        List<String> args = new ArrayList<>(SHORT);
        args.addAll(List.of(extra));
        return runExactly(args.toArray(String[]::new));
    }

    /** A benchmark run with these options only, its report written where {@code --output} says. */
    static MarkdownReport runExactly(String... args) {
        BenchmarkOptions options = BenchmarkOptions.parse(args);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        MarkdownReport report = new Benchmark(options, "test", new PrintStream(progress, true, StandardCharsets.UTF_8)).run();
        if (options.output() != null) {
            try {
                report.writeTo(options.output());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return report;
    }

    /** The violations column of every contended row. */
    private static List<String> contendedViolations(String markdown) {
        int start = markdown.indexOf("## 2. Contended");
        String table = markdown.substring(start, markdown.indexOf("\n## ", start));
        return tableRows(table).stream().map(line -> line.split("\\|")[10].trim()).toList();
    }

    /** The body rows of the first table in {@code section}. */
    static List<String> tableRows(String section) {
        return section.lines().filter(line -> line.startsWith("| ") && !line.startsWith("| implementation") && !line.startsWith("| variant")).toList();
    }
}
