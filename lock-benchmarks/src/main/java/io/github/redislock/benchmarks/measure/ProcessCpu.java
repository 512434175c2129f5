package io.github.redislock.benchmarks.measure;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time of this JVM (all its threads: the client's own, GC, JIT), in nanoseconds. */
public final class ProcessCpu {

    private static final Path TASKS = Path.of("/proc/self/task");
    /** Linux's USER_HZ, the unit of a task's utime and stime; 100 on every common kernel. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private ProcessCpu() {
    }

    public static long nanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * {@link #nanos()} less what the JIT compiler threads used, on Linux (elsewhere the same as {@link #nanos()}).
     * A busy machine delays compilation past any warm-up: in the 2026-11-26 23:40 UTC runs the C2 thread alone
     * used 52 and 184 µs per uncontended pair of redis-lock and RedisLockRegistry, more than their own threads,
     * and a figure meant to compare the libraries' work per pair measured when the JIT happened to run.
     * A compiler thread that ends inside the window takes its time out of the subtraction (10 ms resolution).
     */
    public static long nanosWithoutCompiler() {
        long total = nanos();
        return total < 0 ? total : total - compilerNanos();
    }

    private static long compilerNanos() {
        if (!Files.isDirectory(TASKS)) {
            return 0;
        }
        long ticks = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                ticks += compilerTicks(task);
            }
        } catch (IOException e) {
            return 0;
        }
        return ticks * NANOS_PER_TICK;
    }

    /** utime + stime of a JIT compiler thread ({@code C1/C2 CompilerThre...}), 0 for any other or one already gone. */
    private static long compilerTicks(Path task) {
        try {
            String stat = Files.readString(task.resolve("stat"));
            int nameStart = stat.indexOf('(');
            int nameEnd = stat.lastIndexOf(')');
            if (!stat.substring(nameStart + 1, nameEnd).contains("CompilerThre")) {
                return 0;
            }
            // after the name: state (field 3) ... utime (field 14) and stime (field 15)
            String[] fields = stat.substring(nameEnd + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException gone) {
            return 0;
        }
    }

    public static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }
}
