package io.github.redislock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import io.github.redislock.core.RedisLocker;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The old-against-new scenario on a real redis-server, with the current library packed into a jar as its
 * baseline: both run in alternating order, round after round, and the summary compares them. No figure is
 * asserted.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OldVsNewRunTest {

    @Test
    void theBaselineAndTheCurrentLibraryRunAlternatelyAndTheSummaryComparesThem(@TempDir Path dir) throws Exception {
        Path jar = libraryJar(dir);

        String markdown = QuickRunTest.runExactly("--baseline-jar=" + jar, "--baseline-label=test-base", "--implementations=redis-lock,redis-lock-baseline",
                "--scenarios=old-vs-new", "--rounds=2", "--threads=2", "--seconds-per-row=0.3", "--warmup-seconds=0.1", "--jvm-warmup-seconds=0.2",
                "--output=none").render();

        String section = markdown.substring(markdown.indexOf("## Old against new"), markdown.indexOf("## Goal check"));
        List<String> rows = QuickRunTest.tableRows(section).stream().filter(row -> row.matches("\\| [12] \\| .*redis-lock.*")).toList();
        assertThat(rows).hasSize(4).noneMatch(row -> row.contains("FAILED"));
        assertThat(rows.get(0)).startsWith("| 1 | redis-lock at test-base (baseline) | 2 |");
        assertThat(rows.get(1)).startsWith("| 1 | **redis-lock (this project)** | 2 |");
        assertThat(rows.get(2)).startsWith("| 2 | **redis-lock (this project)** | 2 |");
        assertThat(rows.get(3)).startsWith("| 2 | redis-lock at test-base (baseline) | 2 |");
        assertThat(rows).allSatisfy(row -> assertThat(row.split("\\|")[4].trim()).as("pairs/s").matches("[0-9,]+"));
        assertThat(section).containsPattern("\\| 2 \\| [0-9,]+ / [0-9,]+ \\| [0-9.]+x \\([0-9.]+-[0-9.]+\\) \\|");
    }

    @Test
    void theBaselineTakesPartInTheScaleRowsAndItsWaitersAreCheckedAgainstItsOwnQueue(@TempDir Path dir) throws Exception {
        Path jar = libraryJar(dir);

        String markdown = QuickRunTest.runExactly("--baseline-jar=" + jar, "--baseline-label=test-base", "--implementations=redis-lock,redis-lock-baseline",
                "--scenarios=waiters,held-locks", "--quick", "--seconds-per-row=0.3", "--warmup-seconds=0.1", "--jvm-warmup-seconds=0.2",
                "--held-seconds=1.2", "--output=none").render();

        List<String[]> waiters = QuickRunTest.tableRows(markdown.substring(markdown.indexOf("## 5. Waiters"), markdown.indexOf("## 6. Held locks")))
                .stream().map(row -> Stream.of(row.split("\\|")).map(String::trim).toArray(String[]::new)).toList();
        String[] baselineQueued = waiters.stream().filter(row -> row[1].contains("test-base") && !row[13].contains("looping")).findFirst().orElseThrow();
        assertThat(new String[] {baselineQueued[8], baselineQueued[9], baselineQueued[12]}).as("served once, out of queue order, violations")
                .containsExactly("100", "0", "0");
        String heldLocks = markdown.substring(markdown.indexOf("## 6. Held locks"), markdown.indexOf("## Goal check"));
        assertThat(QuickRunTest.tableRows(heldLocks)).filteredOn(row -> row.contains("test-base")).singleElement().asString()
                .doesNotContain("FAILED").contains("| 1,000 | 2 |");
    }

    @Test
    void theBaselineWithoutItsJarIsRejectedNamingTheOption() {
        assertThatThrownBy(() -> BenchmarkOptions.parse("--implementations=redis-lock,redis-lock-baseline"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--baseline-jar");
        assertThatThrownBy(() -> BenchmarkOptions.parse("--scenarios=old-vs-new"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--baseline-jar").hasMessageContaining("redis-lock-baseline");
    }

    @Test
    void aJarThatIsNotTheLibraryIsRejectedNamingIt(@TempDir Path dir) throws IOException {
        Path jar = dir.resolve("not-the-library.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("README"));
        }
        BenchmarkOptions options = BenchmarkOptions.parse("--baseline-jar=" + jar, "--implementations=redis-lock-baseline", "--scenarios=uncontended");

        assertThatThrownBy(() -> new Benchmark(options, "test", System.err).run())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--baseline-jar=" + jar).hasMessageContaining("RedisLocker");
    }

    /** The library's classes and scripts as this test sees them, in a jar as a baseline commit's build makes one. */
    private static Path libraryJar(Path dir) throws IOException, URISyntaxException {
        Path classes = Path.of(RedisLocker.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isRegularFile(classes)) {
            return classes;
        }
        Path jar = dir.resolve("lock-autoconfigure-baseline.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
                Files.copy(file, out);
                out.closeEntry();
            }
        }
        return jar;
    }
}
