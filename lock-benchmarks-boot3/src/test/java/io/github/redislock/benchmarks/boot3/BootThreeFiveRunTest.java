package io.github.redislock.benchmarks.boot3;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootVersion;

import io.github.redislock.benchmarks.Benchmark;
import io.github.redislock.benchmarks.BenchmarkOptions;

/**
 * lock-benchmarks' sources on the Spring Boot 3.5 line: every implementation measures its uncontended pair and
 * both annotations lock through their Boot 3.5 auto-configurations. Tests the harness, not the speed.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BootThreeFiveRunTest {

    @Test
    void everyImplementationAndBothAnnotationsRunOnBootThreeFive() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");

        BenchmarkOptions options = BenchmarkOptions.parse("--scenarios=uncontended,annotation", "--threads=2", "--seconds-per-row=0.3",
                "--warmup-seconds=0.1", "--jvm-warmup-seconds=0.2", "--jmh-warmup-iterations=1", "--jmh-iterations=2",
                "--jmh-iteration-seconds=0.2", "--output=none");
        String markdown = new Benchmark(options, "test", new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run().render();

        assertThat(markdown).contains("| **redis-lock (this project)** | 2 |", "| Redisson 4.7.0 RLock | 2 |", "| RedisLockRegistry 6.5.5 SPIN_LOCK | 2 |",
                "| RedisLockRegistry 6.5.5 PUB_SUB_LOCK | 2 |", "| lock4j 2.2.7 RedisTemplate | 2 |", "| naive SET NX PX (Lettuce) | 2 |",
                "| redis-lock (this project) ReactiveLocker | 2 |", "| ceiling: lock scripts via Lettuce async |");
        assertThat(markdown).contains("| redis-lock: `@DistributedLock` method | 2 |", "| lock4j: `@Lock4j` method | 2 |");
        assertThat(markdown).doesNotContain("FAILED");
        List<String> uncontended = markdown.lines().filter(line -> line.matches("\\| .* \\| 2 \\| [0-9,]+ \\|.*")).toList();
        assertThat(uncontended).as("uncontended rows with pairs/s").hasSizeGreaterThanOrEqualTo(8);
    }

    @Test
    void theUsageAndTheReportedCommandNameTheBootThreeFiveJar() {
        assertThat(BenchmarkOptions.USAGE).contains("java -jar lock-benchmarks-boot3/target/lock-benchmarks-boot3.jar [options]",
                "java -jar lock-benchmarks-boot3/target/lock-benchmarks-boot3.jar --client-cost").doesNotContain("lock-benchmarks/target");
        assertThat(BenchmarkOptions.JAR).isEqualTo("lock-benchmarks-boot3/target/lock-benchmarks-boot3.jar");
    }
}
