package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockObservationAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring's real scheduler on two application instances whose scheduler clocks differ by 200 ms, as
 * two hosts' clocks may: each job is a {@code @Scheduled} method under {@code @DistributedLock(waitTime = 0,
 * onFailure = SKIP)}. One run of {@value #SLOTS} one-second slots (about 13 s) feeds every test here: the
 * jobs run side by side, each on its own key, and each test reads what one of them did. Ten slots give
 * each test's condition ten chances to break (a second run in a slot, a run within holdAtLeast of the
 * last, two slow runs at once) and the control ten chances to show the duplicate it is there to show.
 * One kept run starts {@link Report#LATE_START_MILLIS} late, and still counts in its trigger's slot.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ScheduledJobsAcrossInstancesTest {

    static final int SLOTS = 10;
    static final Duration SKEW = Duration.ofMillis(200);
    static final long RATE_HOLD_AT_LEAST_MILLIS = 800;

    private final RunLog runs = new RunLog();
    private final Map<String, MeterRegistry> meters = new ConcurrentHashMap<>();
    /** The first and last slot (epoch seconds) both instances scheduled in full. */
    private long firstSlot;
    private long lastSlot;

    private ApplicationContextRunner instance(String name, Duration clockOffset, String run) {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.METRICS), AopAutoConfiguration.class,
                        RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class, RedisLockObservationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port(),
                        "redis-lock.watchdog-timeout=2s", "job.run=" + run, "job.instance=" + name)
                .withBean(RunLog.class, () -> runs)
                .withBean(Clock.class, () -> Clock.offset(Clock.systemUTC(), clockOffset))
                .withUserConfiguration(Jobs.class);
    }

    @BeforeAll
    void runBothInstancesForTheSlots() {
        String run = UUID.randomUUID().toString();
        instance("A", Duration.ZERO, run).run(first -> instance("B", SKEW.negated(), run).run(second -> {
            assertThat(first).hasNotFailed();
            assertThat(second).hasNotFailed();
            meters.put("A", first.getBean(MeterRegistry.class));
            meters.put("B", second.getBean(MeterRegistry.class));
            firstSlot = System.currentTimeMillis() / 1000 + 1;
            lastSlot = firstSlot + SLOTS - 1;
            Report.LATE_SLOT.set(firstSlot + 3);
            // B fires each slot SKEW after A; the last slot's runs (the slow job's 1.5 s included) are over by then.
            long until = (lastSlot + 1) * 1000 + SKEW.toMillis() + 1_600;
            Thread.sleep(Math.max(0, until - System.currentTimeMillis()));
            System.out.printf("Scheduled jobs on instances %d ms apart, slots %d to %d: %s%n", SKEW.toMillis(), firstSlot, lastSlot,
                    summary());
        }));
    }

    @Test
    void withHoldAtLeastACronJobRunsExactlyOncePerSlot() {
        Map<Long, List<Run>> bySlot = runs.bySlot("kept", firstSlot, lastSlot);
        assertThat(bySlot).hasSize(SLOTS).allSatisfy((slot, inSlot) -> assertThat(inSlot).as("runs in slot " + slot).hasSize(1));
        assertThat(skips("kept", "A") + skips("kept", "B")).as("the other instance tried and skipped").isGreaterThanOrEqualTo(SLOTS - 2);
    }

    @Test
    void withoutHoldAtLeastTheSameCronJobRunsTwiceInSlots() {
        Map<Long, List<Run>> bySlot = runs.bySlot("control", firstSlot, lastSlot);
        long duplicates = bySlot.values().stream().filter(inSlot -> inSlot.size() > 1).count();
        assertThat(duplicates).as("slots run on both instances (the control)").isPositive();
    }

    @Test
    void aFixedRateJobNeverStartsWithinHoldAtLeastOfItsLastRunOnEitherInstance() {
        assertRunsApartAtLeast("rate");
    }

    @Test
    void aFixedDelayJobNeverStartsWithinHoldAtLeastOfItsLastRunOnEitherInstance() {
        assertRunsApartAtLeast("delay");
    }

    @Test
    void aRunLongerThanItsPeriodNeverOverlapsTheNextRunOnTheOtherInstance() {
        assertThat(runs.inWindow("slow", firstSlot, lastSlot)).hasSizeGreaterThanOrEqualTo(SLOTS / 4);
        assertThat(runs.mostAtOnce("slow")).isEqualTo(1);
        assertThat(skips("slow", "A") + skips("slow", "B")).as("runs that found the lock taken by a run still going").isPositive();
    }

    @Test
    void aSkippedRunIsATimedOutAcquisitionOfTheJobInTheMetrics() {
        long ranOnB = runs.inWindow("kept", firstSlot, lastSlot).stream().filter(r -> r.instance.equals("B")).count();
        assertThat(skips("kept", "B")).as("B's triggers fire after A's, so B skips").isGreaterThanOrEqualTo(SLOTS - 2 - ranOnB);
    }

    private void assertRunsApartAtLeast(String job) {
        List<Run> inOrder = runs.inWindow(job, firstSlot, lastSlot);
        assertThat(inOrder).hasSizeGreaterThanOrEqualTo(SLOTS * 3 / 4);
        assertThat(skips(job, "A") + skips(job, "B")).as("triggers that met the kept lock").isPositive();
        for (int i = 1; i < inOrder.size(); i++) {
            long gapMillis = TimeUnit.NANOSECONDS.toMillis(inOrder.get(i).startNanos - inOrder.get(i - 1).startNanos);
            // The kept lock ends holdAtLeast after the previous run learnt it holds it, a moment before its body started.
            assertThat(gapMillis).as("gap before run " + i + " of " + inOrder).isGreaterThanOrEqualTo(RATE_HOLD_AT_LEAST_MILLIS - 50);
        }
    }

    private long skips(String job, String instance) {
        Timer timer = meters.get(instance).find("redis.lock.acquire").tags("lock.name", job, "lock.result", "timed-out").timer();
        return timer == null ? 0 : timer.count();
    }

    private String summary() {
        List<String> lines = new ArrayList<>();
        for (String job : List.of("kept", "control", "rate", "delay", "slow")) {
            Map<Long, List<Run>> bySlot = runs.bySlot(job, firstSlot, lastSlot);
            long twice = bySlot.values().stream().filter(inSlot -> inSlot.size() > 1).count();
            lines.add(job + ": " + runs.inWindow(job, firstSlot, lastSlot).size() + " runs, " + twice + " slots run twice, skipped A "
                    + skips(job, "A") + " B " + skips(job, "B"));
        }
        return String.join("; ", lines);
    }

    /**
     * One run of a job: which instance, which slot by its own scheduler clock (the second its trigger fired
     * for, not the second its body started in: a run that starts late on a loaded machine still belongs to
     * its trigger's slot), when it started on the monotonic clock.
     */
    record Run(String job, String instance, long slot, long startNanos) {
    }

    /** What the jobs of both instances did, and how many runs of each job were going at once at most. */
    static final class RunLog {
        private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();
        private final Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
        private final Map<String, AtomicInteger> mostAtOnce = new ConcurrentHashMap<>();

        void run(String job, String instance, Clock clock, long workMillis) throws InterruptedException {
            Instant triggeredFor = TriggerTimes.CURRENT.get();
            // A periodic job has no trigger time of its own: its slot is the full second nearest its start.
            long slot = triggeredFor != null ? triggeredFor.getEpochSecond() : Math.round(clock.millis() / 1000.0);
            runs.add(new Run(job, instance, slot, System.nanoTime()));
            int now = running.computeIfAbsent(job, j -> new AtomicInteger()).incrementAndGet();
            mostAtOnce.computeIfAbsent(job, j -> new AtomicInteger()).accumulateAndGet(now, Math::max);
            try {
                Thread.sleep(workMillis);
            } finally {
                running.get(job).decrementAndGet();
            }
        }

        List<Run> inWindow(String job, long firstSlot, long lastSlot) {
            return runs.stream().filter(r -> r.job.equals(job) && r.slot >= firstSlot && r.slot <= lastSlot)
                    .sorted((a, b) -> Long.compare(a.startNanos, b.startNanos)).toList();
        }

        Map<Long, List<Run>> bySlot(String job, long firstSlot, long lastSlot) {
            Map<Long, List<Run>> bySlot = new TreeMap<>();
            for (long slot = firstSlot; slot <= lastSlot; slot++) {
                bySlot.put(slot, new ArrayList<>());
            }
            inWindow(job, firstSlot, lastSlot).forEach(r -> bySlot.get(r.slot).add(r));
            return bySlot;
        }

        int mostAtOnce(String job) {
            return mostAtOnce.getOrDefault(job, new AtomicInteger()).get();
        }
    }

    /** The same job beans on each instance, each job on its own key. */
    static class Report {
        /**
         * The slot whose kept run on A starts 0.7 s after its trigger, as a run may on a loaded machine: past half a slot,
         * so a start time rounded to its nearest second would land in the next slot. It holds the lock meanwhile, so the
         * next slot's runs find it free only if the late run ends in time: 0.9 s left A's next run 80 ms and B's 280 ms,
         * which a loaded machine's late wake-up from the sleep and slow unlock could spend (a slot without a run).
         */
        static final AtomicLong LATE_SLOT = new AtomicLong();
        static final long LATE_START_MILLIS = 700;
        private final RunLog runs;
        private final Clock clock;
        private final String instance;

        Report(RunLog runs, Clock clock, String instance) {
            this.runs = runs;
            this.clock = clock;
            this.instance = instance;
        }

        @Scheduled(cron = "* * * * * *")
        @DistributedLock(key = "'job:kept:${job.run}'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "500ms", name = "kept")
        public void kept() throws InterruptedException {
            if (instance.equals("A") && clock.millis() / 1000 == LATE_SLOT.get()) {
                Thread.sleep(LATE_START_MILLIS);
            }
            runs.run("kept", instance, clock, 20);
        }

        @Scheduled(cron = "* * * * * *")
        @DistributedLock(key = "'job:control:${job.run}'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, name = "control")
        public void control() throws InterruptedException {
            runs.run("control", instance, clock, 20);
        }

        @Scheduled(fixedRate = 1000)
        @DistributedLock(key = "'job:rate:${job.run}'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "800ms", name = "rate")
        public void rate() throws InterruptedException {
            runs.run("rate", instance, clock, 20);
        }

        @Scheduled(fixedDelay = 1000)
        @DistributedLock(key = "'job:delay:${job.run}'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "PT0.8S", name = "delay")
        public void delay() throws InterruptedException {
            runs.run("delay", instance, clock, 20);
        }

        /** Runs 1.5 s, longer than its 1 s period: the other instance's triggers fire while it runs. */
        @Scheduled(cron = "* * * * * *")
        @DistributedLock(key = "'job:slow:${job.run}'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "500ms", name = "slow")
        public void slow() throws InterruptedException {
            runs.run("slow", instance, clock, 1500);
        }
    }

    /**
     * A scheduler that tells a cron run the time its trigger fired for ({@link #CURRENT}, on the run's thread):
     * Spring computes the next fire time, then runs the task at it, so the time last computed for a task
     * is the one its current run was scheduled at.
     */
    static final class TriggerTimes extends ThreadPoolTaskScheduler {
        static final ThreadLocal<Instant> CURRENT = new ThreadLocal<>();

        @Override
        public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
            AtomicReference<Instant> scheduledFor = new AtomicReference<>();
            Trigger remembered = context -> {
                Instant next = trigger.nextExecution(context);
                scheduledFor.set(next);
                return next;
            };
            return super.schedule(() -> {
                CURRENT.set(scheduledFor.get());
                try {
                    task.run();
                } finally {
                    CURRENT.remove();
                }
            }, remembered);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Jobs {

        /** The scheduler whose clock the instance's cron triggers follow; a thread per job, so no job waits for another. */
        @Bean
        ThreadPoolTaskScheduler taskScheduler(Clock clock, @Value("${job.instance}") String instance) {
            ThreadPoolTaskScheduler scheduler = new TriggerTimes();
            scheduler.setPoolSize(5);
            scheduler.setClock(clock);
            scheduler.setThreadNamePrefix("scheduler-" + instance + "-");
            return scheduler;
        }

        @Bean
        Report report(RunLog runs, Clock clock, @Value("${job.instance}") String instance) {
            return new Report(runs, clock, instance);
        }
    }
}
