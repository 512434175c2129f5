package io.github.redislock.benchmarks.measure;

import java.lang.management.ManagementFactory;

/** CPU time of this JVM (all its threads: the client's own, GC, JIT), in nanoseconds. */
public final class ProcessCpu {

    private ProcessCpu() {
    }

    public static long nanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    public static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }
}
