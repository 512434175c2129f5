package io.github.redislock.sample.report;

import java.time.Clock;
import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.stereotype.Component;

/**
 * Where a report run is written down: one entry {@code <slot>|<instance>} per run in the Redis list
 * {@code sample-report:<report>:runs}, the slot being the second its instance's scheduler clock shows
 * (the second a cron trigger fires at). It stands for the report itself, and lets anyone count runs
 * across instances: the demo does.
 */
@Component
public class ReportRuns {

    private final StringRedisTemplate redis;
    private final Clock clock;
    private final String instance = Long.toString(ProcessHandle.current().pid()) + "-" + Integer.toHexString(System.identityHashCode(this));

    public ReportRuns(StringRedisTemplate redis, ObjectProvider<TaskScheduler> scheduler) {
        this.redis = redis;
        TaskScheduler taskScheduler = scheduler.getIfUnique();
        this.clock = taskScheduler != null ? taskScheduler.getClock() : Clock.systemDefaultZone();
    }

    public void record(String report) {
        long slot = Math.round(clock.millis() / 1000.0); // a trigger fires at (or just after) its clock's full second
        redis.opsForList().rightPush(key(report), slot + "|" + instance);
    }

    /** Every run of {@code report} written down so far, as {@code <slot>|<instance>}. */
    public List<String> runs(String report) {
        List<String> runs = redis.opsForList().range(key(report), 0, -1);
        return runs == null ? List.of() : runs;
    }

    public void forget(String report) {
        redis.delete(key(report));
    }

    private static String key(String report) {
        return "sample-report:" + report + ":runs";
    }
}
