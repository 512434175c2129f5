package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAsyncAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockObservationAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import reactor.core.publisher.Mono;

/**
 * {@code @DistributedLock(holdAtLeast = ...)} on one instance: its own scheduler thread, a long run, a skipped call (and its DEBUG
 * line, also for several keys), stages and streams.
 */
@ExtendWith(OutputCaptureExtension.class)
class HoldAtLeastAnnotationTest {

    private static final String ANNOTATION_LOGGER = DistributedLock.class.getName();

    private final String run = UUID.randomUUID().toString();

    private ApplicationContextRunner application() {
        return new ApplicationContextRunner()
                .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.METRICS), AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
                        RedisLockAsyncAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class, RedisLockObservationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port(),
                        "redis-lock.watchdog-timeout=2s", "job.run=" + run);
    }

    @AfterEach
    void quietLogger() {
        LoggingSystem.get(getClass().getClassLoader()).setLogLevel(ANNOTATION_LOGGER, null);
    }

    @Test
    void theSameSchedulerThreadsNextRunSkipsWhileTheLockIsKept() {
        application().withUserConfiguration(OneThreadScheduler.class).run(context -> {
            Runs runs = context.getBean(Runs.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> runs.starts().size() >= 4);

            List<Start> starts = List.copyOf(runs.starts());
            assertThat(starts).extracting(Start::thread).containsOnly(starts.get(0).thread());
            for (int i = 1; i < starts.size(); i++) {
                // Every 200 ms the thread tries; only once the kept lock ended (500 ms after the last run took it) does it run.
                assertThat(TimeUnit.NANOSECONDS.toMillis(starts.get(i).nanos() - starts.get(i - 1).nanos())).isGreaterThanOrEqualTo(450);
            }
            assertThat(context.getBean(MeterRegistry.class).get("redis.lock.acquire").tags("lock.name", "often", "lock.result", "timed-out")
                    .timer().count()).isPositive();
        });
    }

    @Test
    void aRunLongerThanHoldAtLeastReleasesTheLockAsItReturnsAndAShorterOneKeepsIt() {
        application().withUserConfiguration(LockAfterRun.class).run(context -> {
            Map<String, Boolean> lockedAfterRun = context.getBean(LockAfterRun.class).lockedAfterRun;
            await().atMost(Duration.ofSeconds(10)).until(() -> lockedAfterRun.size() == 2);

            assertThat(lockedAfterRun).containsEntry("long", false).containsEntry("short", true);
        });
    }

    @Test
    void aSkippedCallIsLoggedAtDebugNamingTheJobAndTheLockKeptForItsHoldAtLeast(CapturedOutput output) {
        LoggingSystem.get(getClass().getClassLoader()).setLogLevel(ANNOTATION_LOGGER, LogLevel.DEBUG);
        application().withUserConfiguration(Calls.class).run(context -> {
            Job job = context.getBean(Job.class);
            job.report();
            job.report();

            assertThat(job.ran()).hasSize(1);
            assertThat(output).containsPattern("Skipped nightly-report: lock 'report:" + run
                    + "' is held by nobody: kept until \\S+ \\(another \\d+ ms\\) for its holdAtLeast");
        });
    }

    @Test
    void aSkippedCallIsLoggedAtDebugNamingTheOwnerHoldingTheLock(CapturedOutput output) {
        assertSkippedWhileHeldElsewhere(output, "report", Job::report, "nightly-report");
    }

    /** Several keys (which have no holdAtLeast): the line names the one that kept the call out and its holder, not all of them. */
    @Test
    void aSkippedCallOnSeveralKeysIsLoggedAtDebugNamingTheBusyKeyAndItsOwner(CapturedOutput output) {
        assertSkippedWhileHeldElsewhere(output, "ledger", Job::books, "nightly-books");
    }

    /** Calls {@code call} while another owner holds {@code key}: skipped, and its DEBUG line names {@code name}, the key and that owner. */
    private void assertSkippedWhileHeldElsewhere(CapturedOutput output, String key, java.util.function.Consumer<Job> call, String name) {
        LoggingSystem.get(getClass().getClassLoader()).setLogLevel(ANNOTATION_LOGGER, LogLevel.DEBUG);
        application().withUserConfiguration(Calls.class).run(context -> {
            Locker locker = context.getBean(Locker.class);
            assertThat(locker.tryLockAs("elsewhere", key + ":" + run, 0, -1, TimeUnit.MILLISECONDS)).isTrue();
            call.accept(context.getBean(Job.class));

            assertThat(context.getBean(Job.class).ran()).isEmpty();
            assertThat(output).containsPattern("Skipped " + name + ": lock '" + key + ":" + run + "' is held by owner \\S+:~elsewhere");
            locker.unlockAs("elsewhere", key + ":" + run);
        });
    }

    @Test
    void aStageMethodKeepsItsLockUntilHoldAtLeast() {
        application().withUserConfiguration(Calls.class).run(context -> {
            Job job = context.getBean(Job.class);
            job.stage().toCompletableFuture().get(5, TimeUnit.SECONDS);

            assertThat(context.getBean(Locker.class).isLocked("stage:" + run)).isTrue();
            job.stage().toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(job.ran()).containsExactly("stage");
        });
    }

    @Test
    void aMonoMethodKeepsItsLockUntilHoldAtLeast() {
        application().withUserConfiguration(Calls.class).run(context -> {
            Job job = context.getBean(Job.class);
            job.mono().block(Duration.ofSeconds(5));

            assertThat(context.getBean(Locker.class).isLocked("mono:" + run)).isTrue();
            job.mono().block(Duration.ofSeconds(5));
            assertThat(job.ran()).containsExactly("mono");
        });
    }

    record Start(String thread, long nanos) {
    }

    static class Runs {
        private final List<Start> starts = new CopyOnWriteArrayList<>();

        /** A method, not the field: the bean is a proxy. */
        public List<Start> starts() {
            return starts;
        }

        @Scheduled(fixedRate = 200)
        @DistributedLock(key = "'often:${job.run}'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "500ms", name = "often")
        public void often() throws InterruptedException {
            starts.add(new Start(Thread.currentThread().getName(), System.nanoTime()));
            Thread.sleep(20);
        }
    }

    /** A scheduler of one thread: every run of the job is on the same thread, the owner it would re-enter as. */
    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class OneThreadScheduler {
        @Bean
        ThreadPoolTaskScheduler taskScheduler() {
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            scheduler.setPoolSize(1);
            return scheduler;
        }

        @Bean
        Runs runs() {
            return new Runs();
        }
    }

    /**
     * Two jobs run once each, and the scheduler's task decorator looks at Redis right after the whole
     * scheduled call (the lock's release included) returned: is the job's lock still there?
     */
    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class LockAfterRun {
        private static final ThreadLocal<String> RAN = new ThreadLocal<>();
        final Map<String, Boolean> lockedAfterRun = new ConcurrentHashMap<>();

        @Bean
        OnceEach onceEach() {
            return new OnceEach();
        }

        @Bean
        ThreadPoolTaskScheduler taskScheduler(StringRedisTemplate redis, @Value("${job.run}") String run) {
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            scheduler.setPoolSize(2);
            scheduler.setTaskDecorator(task -> () -> {
                task.run();
                String job = RAN.get();
                RAN.remove();
                lockedAfterRun.put(job, Boolean.TRUE.equals(redis.hasKey("lock:" + job + ":" + run)));
            });
            return scheduler;
        }
    }

    static class OnceEach {
        @Scheduled(fixedDelay = 60_000)
        @DistributedLock(key = "'long:${job.run}'", holdAtLeast = "100ms")
        public void longRun() throws InterruptedException {
            Thread.sleep(300);
            LockAfterRun.RAN.set("long");
        }

        @Scheduled(fixedDelay = 60_000)
        @DistributedLock(key = "'short:${job.run}'", holdAtLeast = "2s")
        public void shortRun() {
            LockAfterRun.RAN.set("short");
        }
    }

    static class Job {
        private final List<String> ran = new CopyOnWriteArrayList<>();

        /** A method, not the field: the bean is a proxy. */
        public List<String> ran() {
            return ran;
        }

        @DistributedLock(key = "'report:${job.run}'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "2s", name = "nightly-report")
        public void report() {
            ran.add("report");
        }

        @DistributedLock(keys = {"'report:${job.run}'", "'ledger:${job.run}'"}, waitTime = 0, onFailure = LockFailurePolicy.SKIP, name = "nightly-books")
        public void books() {
            ran.add("books");
        }

        @DistributedLock(key = "'stage:${job.run}'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "2s")
        public CompletableFuture<Void> stage() {
            ran.add("stage");
            return CompletableFuture.completedFuture(null);
        }

        @DistributedLock(key = "'mono:${job.run}'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "2s")
        public Mono<Void> mono() {
            return Mono.fromRunnable(() -> ran.add("mono"));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Calls {
        @Bean
        Job job() {
            return new Job();
        }
    }
}
