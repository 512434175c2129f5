package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAsyncAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

/** With {@code @Async}, the lock covers the asynchronous execution, not just the hand-off to the executor. */
class DistributedLockAsyncTest {

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(AopAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
                    RedisLockAutoConfiguration.class, RedisLockAsyncAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withUserConfiguration(AsyncConfiguration.class)
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void anAsyncVoidMethodHoldsTheLockOnTheExecutorThreadWhileItRuns() {
        application.run(context -> {
            Reports reports = context.getBean(Reports.class);
            Locker locker = context.getBean(Locker.class);
            String key = "report-" + UUID.randomUUID();
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);

            reports.generate(key, entered, finish);
            assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(locker.isLocked("report:" + key)).isTrue();
            assertThat(locker.isHeldByCurrentThread("report:" + key)).as("held by the executor thread, not the caller").isFalse();

            finish.countDown();
            await().atMost(Duration.ofSeconds(5)).until(() -> !locker.isLocked("report:" + key));
        });
    }

    @Test
    void anAsyncFutureMethodHoldsTheLockUntilItsFutureCompletes() {
        application.run(context -> {
            Reports reports = context.getBean(Reports.class);
            Locker locker = context.getBean(Locker.class);
            String key = "report-" + UUID.randomUUID();
            CountDownLatch finish = new CountDownLatch(1);

            CompletableFuture<String> result = reports.export(key, finish);
            await().atMost(Duration.ofSeconds(5)).until(() -> locker.isLocked("export:" + key));
            finish.countDown();
            assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("exported " + key);
            await().atMost(Duration.ofSeconds(5)).until(() -> !locker.isLocked("export:" + key));
        });
    }

    static class Reports {
        @Autowired
        Locker locker;

        @Async
        @DistributedLock(key = "'report:' + #key")
        public void generate(String key, CountDownLatch entered, CountDownLatch finish) throws InterruptedException {
            if (locker.isHeldByCurrentThread("report:" + key)) {
                entered.countDown();
            }
            finish.await(10, TimeUnit.SECONDS);
        }

        @Async
        @DistributedLock(key = "'export:' + #key")
        public CompletableFuture<String> export(String key, CountDownLatch finish) throws InterruptedException {
            finish.await(10, TimeUnit.SECONDS);
            return CompletableFuture.completedFuture("exported " + key);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncConfiguration {
        @Bean
        Reports reports() {
            return new Reports();
        }
    }
}
