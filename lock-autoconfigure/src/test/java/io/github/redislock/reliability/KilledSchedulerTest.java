package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;

/**
 * A node that dies in the middle of a scheduled job: its lock ends within the watchdog timeout, not
 * at the job's {@code holdAtLeast} (only a release keeps a lock) nor at a fixed "lock at most for".
 */
class KilledSchedulerTest {

    static final long WATCHDOG_MILLIS = 1500;
    static final long HOLD_AT_LEAST_MILLIS = 30_000;

    @Test
    void theJobLockOfAnInstanceKilledMidRunEndsWithinTheWatchdogTimeout() throws Exception {
        String key = "job:killed-" + UUID.randomUUID();
        String redisKey = "lock:" + key;
        Path logs = Path.of("target", "reliability", "killed-scheduler");
        WorkerProcess worker = WorkerProcess.start("scheduled-job", logs, ScheduledJobWorker.class,
                List.of(Integer.toString(TestRedis.shared().port()), key, Long.toString(WATCHDOG_MILLIS), Long.toString(HOLD_AT_LEAST_MILLIS)));
        long remainingMillis;
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(logs.resolve("scheduled-job.log"))
                    && Files.readString(logs.resolve("scheduled-job.log")).contains("running"));
            // Renewed at least once: the lock has outlived its first lease, so only the watchdog kept it.
            Thread.sleep(WATCHDOG_MILLIS + 200);
            assertThat(TestRedis.shared().command("EXISTS", redisKey)).as(worker.logTail()).isEqualTo(1L);
            worker.kill();
            // Redis's own clock: when this test's thread noticed the end would add its scheduling delay on a loaded machine.
            remainingMillis = (Long) TestRedis.shared().command("PTTL", redisKey);
        } finally {
            worker.destroy();
        }

        assertThat(remainingMillis).as("ms the job's lock had left once its instance was killed (-2: ended already)")
                .isLessThanOrEqualTo(WATCHDOG_MILLIS);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> Long.valueOf(0).equals(TestRedis.shared().command("EXISTS", redisKey)));
    }
}
