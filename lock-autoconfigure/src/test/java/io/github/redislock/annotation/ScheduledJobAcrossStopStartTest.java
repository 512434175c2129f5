package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.autoconfigure.RedisLockRedlockAutoConfiguration;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A scheduled job under a kept lock (docs/scheduling.md) in a context that is stopped and started again
 * ({@code context.stop()}, a checkpoint): the stop leaves no lock of it behind beyond its {@code holdAtLeast},
 * and after the start the job runs again under its lock, without a failed run, on Lettuce, on Jedis and on a
 * Redlock locker. A run
 * that lasts longer than the 2 s a stopping locker gives its holders to release neither overlaps another
 * instance's run nor fails, through a stop and start or a close: Spring's scheduler stops first and waits for
 * it, so it releases while Redis answers.
 */
class ScheduledJobAcrossStopStartTest {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    static final String KEY = "scheduled-stop-start-job";
    static final String LONG_KEY = "scheduled-stop-start-long-job";
    /** Longer than the 2 s a stopping locker gives its holders to release. */
    static final Duration LONG_RUN = Duration.ofMillis(2500);

    /** Shared by the instances of one test (one JVM): how many long runs are inside the job now, and how often two were. */
    static final AtomicInteger inside = new AtomicInteger();
    static final AtomicInteger overlaps = new AtomicInteger();

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(AopAutoConfiguration.class, RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port(),
                    "redis-lock.watchdog-timeout=2s")
            .withUserConfiguration(Scheduling.class);

    @Test
    void aScheduledJobRunsAgainUnderItsLockAfterTheContextStopsAndStarts() {
        runsAgainAfterStopAndStart(application.withBean(Job.class));
    }

    @Test
    void aScheduledJobOnJedisRunsAgainUnderItsLockAfterTheContextStopsAndStarts() {
        runsAgainAfterStopAndStart(application.withBean(Job.class).withPropertyValues("spring.data.redis.client-type=jedis"));
    }

    @Test
    void aScheduledJobOnARedlockLockerRunsAgainUnderItsLockAfterTheContextStopsAndStarts() {
        runsAgainAfterStopAndStart(application.withConfiguration(AutoConfigurations.of(RedisLockRedlockAutoConfiguration.class)).withBean(Job.class)
                .withPropertyValues("redis-lock.redlock.node-timeout=1s", "redis-lock.redlock.nodes=" + masters.urls()),
                () -> masters.copiesOf("lock:" + KEY) == 0);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void aRunOutlastingTheStopNeitherOverlapsTheOtherInstanceNorFailsNorStopsTheJobAfterTheStart(String client) {
        whileOneInstanceIsInsideALongRun(client, (stopped, stoppedRuns, otherRuns) -> {
            stopped.stop();
            int runsAtStop = stoppedRuns.runs.get();
            int otherRunsAtStop = otherRuns.runs.get();
            stopped.start();

            await().atMost(Duration.ofSeconds(30)).until(() -> stoppedRuns.runs.get() > runsAtStop && otherRuns.runs.get() > otherRunsAtStop);
        });
    }

    /** The same run going on as its context closes: it releases its lock before Redis's connection factory stops, and the other instance goes on alone. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "jedis"})
    void aRunGoingOnAtCloseEndsWithoutFailureAndTheOtherInstanceRunsTheJobAfterItNeverAlongside(String client) {
        whileOneInstanceIsInsideALongRun(client, (closing, closingRuns, otherRuns) -> {
            closing.close();
            int otherRunsAtClose = otherRuns.runs.get();

            await().atMost(Duration.ofSeconds(30)).until(() -> otherRuns.runs.get() > otherRunsAtClose + 1);
        });
    }

    /**
     * Two instances of the {@link LongJob}; once the first is inside a run, {@code then} stops or closes it. Afterwards neither
     * instance had a failed run, and the two never ran the job at once.
     */
    private void whileOneInstanceIsInsideALongRun(String client, InsideARun then) {
        ApplicationContextRunner onClient = application.withBean(LongJob.class).withPropertyValues("spring.data.redis.client-type=" + client);
        inside.set(0);
        overlaps.set(0);
        onClient.run(other -> onClient.run(first -> {
            Runs firstRuns = first.getBean(Runs.class);
            Runs otherRuns = other.getBean(Runs.class);
            await().atMost(Duration.ofSeconds(20)).until(() -> firstRuns.running.getCount() == 0);

            then.run(first, firstRuns, otherRuns);

            assertThat(firstRuns.failures).as("failed runs of the instance stopped or closed in a run").isEmpty();
            assertThat(otherRuns.failures).as("failed runs of the other instance").isEmpty();
            assertThat(overlaps.get()).as("runs of the two instances at once").isZero();
        }));
    }

    @FunctionalInterface
    interface InsideARun {
        void run(ConfigurableApplicationContext first, Runs firstRuns, Runs otherRuns);
    }

    private static void runsAgainAfterStopAndStart(ApplicationContextRunner application) {
        runsAgainAfterStopAndStart(application, () -> Long.valueOf(0).equals(TestRedis.shared().command("EXISTS", "lock:" + KEY)));
    }

    /** @param keyGone whether the job's lock is gone from Redis (read apart from the context, whose connections stop with it) */
    private static void runsAgainAfterStopAndStart(ApplicationContextRunner application, BooleanSupplier keyGone) {
        application.run(context -> {
            Runs job = context.getBean(Runs.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> job.runs.get() >= 2);
            await().atMost(Duration.ofSeconds(5)).until(() -> !keyGone.getAsBoolean()); // kept there by the runs: where this looks

            context.stop();
            await().atMost(Duration.ofSeconds(5)).until(keyGone::getAsBoolean);
            int runsAtStop = job.runs.get();
            context.start();

            await().atMost(Duration.ofSeconds(10)).until(() -> job.runs.get() >= runsAtStop + 2);
            assertThat(job.failures).as("failed runs").isEmpty();
        });
    }

    /** Apart from the job, whose bean is a proxy (its fields are not the target's). */
    static class Runs {
        final AtomicInteger runs = new AtomicInteger();
        final CountDownLatch running = new CountDownLatch(1);
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
    }

    /** A job bean: counts its runs in {@link Runs}. */
    abstract static class Counted {
        final Runs runs;

        Counted(Runs runs) {
            this.runs = runs;
        }
    }

    static class Job extends Counted {
        Job(Runs runs) {
            super(runs);
        }

        @Scheduled(fixedRate = 100)
        @DistributedLock(key = "'" + KEY + "'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "300ms")
        public void run() {
            runs.runs.incrementAndGet();
        }
    }

    /** A run of {@link #LONG_RUN}, every 50 ms after the last. */
    static class LongJob extends Counted {
        LongJob(Runs runs) {
            super(runs);
        }

        @Scheduled(fixedDelay = 50)
        @DistributedLock(key = "'" + LONG_KEY + "'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "200ms")
        public void run() {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            try {
                runs.runs.incrementAndGet();
                runs.running.countDown();
                LockSupport.parkNanos(LONG_RUN.toNanos()); // the job's work
            } finally {
                inside.decrementAndGet();
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Scheduling {

        @Bean
        Runs runs() {
            return new Runs();
        }

        @Bean
        ThreadPoolTaskScheduler taskScheduler(Runs job) {
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            scheduler.setErrorHandler(job.failures::add);
            return scheduler;
        }
    }
}
