package io.github.redislock.sample.report;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.LockFailurePolicy;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The shop's nightly sales report: every instance schedules it, exactly one runs it per night.
 *
 * <p>{@code waitTime = 0, onFailure = SKIP}: an instance whose trigger finds the lock taken skips the
 * run (a DEBUG line under {@code io.github.redislock.annotation.DistributedLock} says who holds it).
 * {@code holdAtLeast}: the report takes milliseconds, far less than the clock skew between two hosts;
 * released at once, it would be free again when the later host's trigger fires, and that host would
 * write the report a second time. Kept {@code sample.report.hold-at-least} after it was taken, the
 * lock is still there then. See docs/scheduling.md.
 */
@Component
public class NightlyReport {

    private final ReportRuns runs;

    public NightlyReport(ReportRuns runs) {
        this.runs = runs;
    }

    @Scheduled(cron = "${sample.report.cron}")
    @DistributedLock(key = "'report:nightly'", waitTime = 0, onFailure = LockFailurePolicy.SKIP,
            holdAtLeast = "${sample.report.hold-at-least}", name = "nightly-report")
    public void run() {
        runs.record("nightly-report");
    }
}
