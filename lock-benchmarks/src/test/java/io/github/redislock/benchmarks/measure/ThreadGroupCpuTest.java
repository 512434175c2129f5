package io.github.redislock.benchmarks.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

/** The cpu-split gives each library's own threads to that library: RedisLockRegistry's are not counted as redis-lock's. */
class ThreadGroupCpuTest {

    @Test
    void theRegistrysUnlockThreadsAreNotCountedAsRedisLocksOwn() throws InterruptedException {
        assumeThat(Files.isDirectory(Path.of("/proc/self/task"))).as("a Linux /proc").isTrue();
        long registryBefore = count(ThreadGroupCpu.snapshot(), "registry");
        long oursBefore = count(ThreadGroupCpu.snapshot(), "redis-lock");
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread registryThread = new Thread(() -> {
            running.countDown(); // the JVM gave the kernel thread its name before run(): a snapshot now sees it
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "redis-lock-registry-1"); // as Spring Integration 7's RedisLockRegistry names the threads its unlocks run on
        registryThread.start();
        running.await();
        try {
            Map<String, Object[]> during = ThreadGroupCpu.snapshot();
            assertThat(count(during, "registry")).isEqualTo(registryBefore + 1);
            assertThat(count(during, "redis-lock")).isEqualTo(oursBefore);
        } finally {
            done.countDown();
            registryThread.join();
        }
    }

    private static long count(Map<String, Object[]> threads, String group) {
        return threads.values().stream().filter(thread -> group.equals(thread[0])).count();
    }
}
