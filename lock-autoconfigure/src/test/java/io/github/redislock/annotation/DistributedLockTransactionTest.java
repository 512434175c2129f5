package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A locked read-then-write inside a transaction its caller started: the lock must outlive the method
 * until the caller's transaction commits, or another instance reads the old value and an update is lost.
 */
class DistributedLockTransactionTest {

    static final int INSTANCES = 2;
    static final int THREADS_PER_INSTANCE = 2;
    static final int INCREMENTS_PER_THREAD = 15;

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.JDBC_TRANSACTIONS), AopAutoConfiguration.class,
                    RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withUserConfiguration(CounterConfiguration.class)
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port(),
                    "spring.datasource.url=jdbc:h2:mem:lock-tx;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
                    "redis-lock.default-wait-time=30s");

    @Test
    void theLockIsReleasedOnlyAfterTheCallersTransactionCommitsSoNoUpdateIsLost() {
        application.run(first -> application.run(second -> {
            int value = incrementConcurrently(first, second);
            assertThat(value).isEqualTo(INSTANCES * THREADS_PER_INSTANCE * INCREMENTS_PER_THREAD);
        }));
    }

    @Test
    void releasingAtMethodReturnInsteadLosesUpdates() {
        ApplicationContextRunner withoutDeferral = application.withPropertyValues("redis-lock.release-after-transaction=false");
        withoutDeferral.run(first -> withoutDeferral.run(second -> {
            int value = incrementConcurrently(first, second);
            assertThat(value).isLessThan(INSTANCES * THREADS_PER_INSTANCE * INCREMENTS_PER_THREAD);
        }));
    }

    /** Each caller opens a transaction, calls the locked increment, then does more work before committing. */
    private static int incrementConcurrently(ApplicationContext first, ApplicationContext second) throws Exception {
        String counter = "c-" + UUID.randomUUID();
        JdbcTemplate jdbc = first.getBean(JdbcTemplate.class);
        jdbc.execute("create table if not exists counter(name varchar(64) primary key, amount int not null)");
        jdbc.update("insert into counter(name, amount) values (?, 0)", counter);

        ExecutorService pool = Executors.newFixedThreadPool(INSTANCES * THREADS_PER_INSTANCE);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> callers = new ArrayList<>();
        try {
            for (ApplicationContext instance : List.of(first, second)) {
                TransactionTemplate transaction = instance.getBean(TransactionTemplate.class);
                Counter locked = instance.getBean(Counter.class);
                for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
                    callers.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < INCREMENTS_PER_THREAD; i++) {
                            transaction.executeWithoutResult(status -> {
                                locked.increment(counter);
                                pauseBeforeCommit(); // the caller's own work after the locked call
                            });
                        }
                        return null;
                    }));
                }
            }
            start.countDown();
            for (Future<?> caller : callers) {
                caller.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return jdbc.queryForObject("select amount from counter where name = ?", Integer.class, counter);
    }

    private static void pauseBeforeCommit() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static class Counter {
        @Autowired
        JdbcTemplate jdbc;

        /** Joins the caller's transaction: read, then write what was read plus one. */
        @DistributedLock(key = "'counter:' + #name")
        public void increment(String name) {
            Integer amount = jdbc.queryForObject("select amount from counter where name = ?", Integer.class, name);
            jdbc.update("update counter set amount = ? where name = ?", amount + 1, name);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CounterConfiguration {
        @Bean
        Counter counter() {
            return new Counter();
        }
    }
}
