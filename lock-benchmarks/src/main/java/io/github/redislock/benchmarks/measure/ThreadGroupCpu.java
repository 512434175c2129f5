package io.github.redislock.benchmarks.measure;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * This JVM's CPU time and context switches by thread group, from {@code /proc/self/task} (Linux only): where a
 * client's CPU per pair goes (workers, the Redis client's event loops, GC, JIT, redis-lock's or the registry's own threads), which
 * {@link ProcessCpu} only gives as one sum. Switched on with {@code -Dbench.cpu-split=true} (issue 33).
 */
public final class ThreadGroupCpu {

    public static final boolean ENABLED = Boolean.getBoolean("bench.cpu-split");
    private static final Path TASKS = Path.of("/proc/self/task");
    private static final long NANOS_PER_TICK = 10_000_000L;
    /** Groups by the start of a thread's name as the kernel keeps it (15 characters); the first that matches wins. */
    private static final List<String[]> GROUPS = List.of(
            new String[] {"workers", "uncontended-"},
            new String[] {"jit", "C1 CompilerThre", "C2 CompilerThre"},
            new String[] {"gc", "GC Thread", "G1 ", "VM Periodic", "VM Thread"},
            new String[] {"lettuce/netty", "lettuce-", "nioEventLoop", "epollEventLoop", "globalEventExec"},
            new String[] {"registry", "redis-lock-regi"}, // RedisLockRegistry 7's unlock threads, "redis-lock-registry-N"
            new String[] {"redis-lock", "redis-lock-"});

    /** Per live thread (by id): its group, CPU nanoseconds (utime + stime), voluntary and involuntary context switches. */
    public static Map<String, Object[]> snapshot() {
        Map<String, Object[]> threads = new LinkedHashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    long voluntary = 0;
                    long involuntary = 0;
                    for (String line : Files.readAllLines(task.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            voluntary = Long.parseLong(line.substring(24).trim());
                        } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                            involuntary = Long.parseLong(line.substring(27).trim());
                        }
                    }
                    threads.put(task.getFileName().toString(), new Object[] {group(name),
                            (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK, voluntary, involuntary});
                } catch (IOException | RuntimeException gone) {
                    // a thread that ended meanwhile
                }
            }
        } catch (IOException e) {
            return threads;
        }
        return threads;
    }

    private static String group(String threadName) {
        for (String[] group : GROUPS) {
            for (int i = 1; i < group.length; i++) {
                if (threadName.startsWith(group[i])) {
                    return group[0];
                }
            }
        }
        return "other";
    }

    /** Per pair between two snapshots, per group: CPU in µs and voluntary context switches; a thread that ended in between is left out. */
    public static String perPair(Map<String, Object[]> before, Map<String, Object[]> after, long pairs) {
        Map<String, long[]> groups = new java.util.TreeMap<>();
        after.forEach((tid, now) -> {
            Object[] then = before.getOrDefault(tid, new Object[] {now[0], 0L, 0L, 0L});
            long[] sums = groups.computeIfAbsent((String) now[0], group -> new long[3]);
            for (int i = 0; i < 3; i++) {
                sums[i] += (Long) now[i + 1] - (Long) then[i + 1];
            }
        });
        StringBuilder line = new StringBuilder();
        long[] total = new long[3];
        groups.forEach((group, sums) -> {
            for (int i = 0; i < 3; i++) {
                total[i] += sums[i];
            }
            line.append(String.format(" %s=%.2f/%.2f", group, sums[0] / 1e3 / pairs, (double) sums[1] / pairs));
        });
        return String.format("cpu-split per pair (%d pairs; group=CPU µs/voluntary switches): total=%.2f/%.2f, involuntary %.2f;%s",
                pairs, total[0] / 1e3 / pairs, (double) total[1] / pairs, (double) total[2] / pairs, line);
    }
}
