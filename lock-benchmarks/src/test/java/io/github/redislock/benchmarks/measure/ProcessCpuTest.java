package io.github.redislock.benchmarks.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** The client CPU of the uncontended rows leaves out the JIT compiler's threads, which load, not the library, schedules. */
class ProcessCpuTest {

    @Test
    void theJitCompilerThreadsTimeIsLeftOutOfTheClientCpuOnLinux() {
        assumeThat(Files.isDirectory(Path.of("/proc/self/task"))).as("a Linux /proc").isTrue();

        long withoutCompiler = ProcessCpu.nanosWithoutCompiler();
        long all = ProcessCpu.nanos();

        // this JVM has compiled the test framework by now: its compiler threads have used well over one 10 ms tick
        assertThat(all - withoutCompiler).isGreaterThanOrEqualTo(10_000_000L);
        assertThat(withoutCompiler).isPositive();
    }
}
