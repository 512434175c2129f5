package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * A scheduled job under a kept lock (docs/scheduling.md) in a context that is stopped and started again
 * ({@code context.stop()}, a checkpoint): the stop leaves no lock of it behind beyond its {@code holdAtLeast},
 * and after the start the job runs again under its lock, without a failed run, on Lettuce and on Jedis.
 */
class ScheduledJobAcrossStopStartTest {

    static final String KEY = "scheduled-stop-start-job";

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(AopAutoConfiguration.class, RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port(),
                    "redis-lock.watchdog-timeout=2s")
            .withUserConfiguration(Jobs.class);

    @Test
    void aScheduledJobRunsAgainUnderItsLockAfterTheContextStopsAndStarts() {
        runsAgainAfterStopAndStart(application);
    }

    @Test
    void aScheduledJobOnJedisRunsAgainUnderItsLockAfterTheContextStopsAndStarts() {
        runsAgainAfterStopAndStart(application.withPropertyValues("spring.data.redis.client-type=jedis"));
    }

    private static void runsAgainAfterStopAndStart(ApplicationContextRunner application) {
        LettuceConnectionFactory direct = LockerFixture.startedLettuce(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(5));
        StringRedisTemplate redis = new StringRedisTemplate(direct); // the context's own connections stop with it
        application.run(context -> {
            Runs job = context.getBean(Runs.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> job.runs.get() >= 2);

            context.stop();
            await().atMost(Duration.ofSeconds(5)).until(() -> !Boolean.TRUE.equals(redis.hasKey("lock:" + KEY)));
            int runsAtStop = job.runs.get();
            context.start();

            await().atMost(Duration.ofSeconds(10)).until(() -> job.runs.get() >= runsAtStop + 2);
            assertThat(job.failures).as("failed runs").isEmpty();
        });
        direct.destroy();
    }

    /** Apart from the job, whose bean is a proxy (its fields are not the target's). */
    static class Runs {
        final AtomicInteger runs = new AtomicInteger();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
    }

    static class Job {
        private final Runs runs;

        Job(Runs runs) {
            this.runs = runs;
        }

        @Scheduled(fixedRate = 100)
        @DistributedLock(key = "'" + KEY + "'", waitTime = 0, onFailure = LockFailurePolicy.SKIP, holdAtLeast = "300ms")
        public void run() {
            runs.runs.incrementAndGet();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Jobs {

        @Bean
        Runs runs() {
            return new Runs();
        }

        @Bean
        Job job(Runs runs) {
            return new Job(runs);
        }

        @Bean
        ThreadPoolTaskScheduler taskScheduler(Runs job) {
            ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
            scheduler.setErrorHandler(job.failures::add);
            return scheduler;
        }
    }
}
