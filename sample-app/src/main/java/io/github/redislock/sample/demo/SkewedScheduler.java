package io.github.redislock.sample.demo;

import java.time.Clock;
import java.time.Duration;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.LockFailurePolicy;
import io.github.redislock.sample.report.ReportRuns;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.task.ThreadPoolTaskSchedulerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The demo's rig for the scheduled report, on only when it sets {@value #OFFSET}: a scheduler whose
 * clock is that far off (as a host's clock may be), and beside the real report a twin of it without
 * {@code holdAtLeast}, on a lock of its own, to show what the real one prevents.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(SkewedScheduler.OFFSET)
class SkewedScheduler {

    static final String OFFSET = "sample.demo.scheduler-clock-offset";
    static final String CONTROL = "nightly-report-without-hold-at-least";

    /** Boot's own scheduler, its clock set off (a scheduler bean of our own would also replace Boot's task executor). */
    @Bean
    ThreadPoolTaskSchedulerCustomizer skewedClock(@Value("${" + OFFSET + "}") Duration offset) {
        return scheduler -> {
            scheduler.setPoolSize(2); // the report and its twin fire together
            scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), offset));
        };
    }

    @Bean
    ReportWithoutHoldAtLeast reportWithoutHoldAtLeast(ReportRuns runs) {
        return new ReportWithoutHoldAtLeast(runs);
    }

    /** The nightly report's lock as it would be without {@code holdAtLeast}. */
    static class ReportWithoutHoldAtLeast {
        private final ReportRuns runs;

        ReportWithoutHoldAtLeast(ReportRuns runs) {
            this.runs = runs;
        }

        @Scheduled(cron = "${sample.report.cron}")
        @DistributedLock(key = "'report:nightly-without-hold-at-least'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, name = CONTROL)
        public void run() {
            runs.record(CONTROL);
        }
    }
}
