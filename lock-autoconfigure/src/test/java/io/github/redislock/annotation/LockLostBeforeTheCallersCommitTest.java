package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.github.redislock.LockLostException;
import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A lock kept until its caller's transaction completes protects what the transaction writes only while it is
 * held: one lost before the commit (its lease ran out, the watchdog found it gone) may have gone to another
 * instance, which then read what this one had not committed. The commit fails with {@link LockLostException}
 * and the transaction rolls back, as a method without a caller's transaction fails when its lock was lost.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockLostBeforeTheCallersCommitTest {

    private static final long LEASE_MILLIS = 300;

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.JDBC_TRANSACTIONS), AopAutoConfiguration.class,
                    RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withBean(Counter.class)
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port(),
                    "spring.datasource.url=jdbc:h2:mem:lock-lost-tx;DB_CLOSE_DELAY=-1");

    private final String counter = "c-" + UUID.randomUUID();

    @Test
    void aLockLostBeforeTheCallersTransactionCommitsFailsTheCommitAndRollsItBack() {
        application.run(context -> {
            JdbcTemplate jdbc = counterAtZero(context);
            Locker locker = context.getBean(Locker.class);

            Throwable failure = catchThrowable(() -> context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                context.getBean(Counter.class).increment(counter);
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> !locker.isLocked("counter:" + counter));
            }));

            assertThat(failure).as("the commit fails naming the lost lock").isInstanceOf(LockLostException.class)
                    .hasMessageContaining("counter:" + counter);
            assertThat(jdbc.queryForObject("select amount from counter where name = ?", Integer.class, counter))
                    .as("what the transaction wrote under the lost lock is rolled back").isZero();
        });
    }

    @Test
    void aLossThatFailedTheCommitIsNotLoggedAgainAsAnErrorByTheReleaseAfterTheRollback(CapturedOutput output) {
        application.run(context -> {
            counterAtZero(context);
            Locker locker = context.getBean(Locker.class);

            Throwable failure = catchThrowable(() -> context.getBean(TransactionTemplate.class).executeWithoutResult(status -> {
                context.getBean(Counter.class).increment(counter);
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> !locker.isLocked("counter:" + counter));
            }));

            assertThat(failure).isInstanceOf(LockLostException.class);
            assertThat(output.getAll()).as("the caller already has the loss as the commit's exception")
                    .doesNotContain("afterCompletion threw exception");
        });
    }

    @Test
    void aMethodOfSeveralKeysInACallersTransactionCommitsWhileItsLocksAreHeld() {
        application.run(context -> {
            JdbcTemplate jdbc = counterAtZero(context);

            context.getBean(TransactionTemplate.class).executeWithoutResult(status -> context.getBean(Counter.class).incrementTwice(counter));

            assertThat(jdbc.queryForObject("select amount from counter where name = ?", Integer.class, counter)).as("committed").isEqualTo(2);
            assertThat(context.getBean(Locker.class).isLocked("counter:" + counter)).as("released after the commit").isFalse();
        });
    }

    /** The counter's row, at 0. */
    private JdbcTemplate counterAtZero(ApplicationContext context) {
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbc.execute("create table if not exists counter(name varchar(64) primary key, amount int not null)");
        jdbc.update("insert into counter(name, amount) values (?, 0)", counter);
        return jdbc;
    }

    static class Counter {
        @Autowired
        JdbcTemplate jdbc;

        /** Joins the caller's transaction: read, then write what was read plus one. */
        @DistributedLock(key = "'counter:' + #name", leaseTime = LEASE_MILLIS)
        public void increment(String name) {
            Integer amount = jdbc.queryForObject("select amount from counter where name = ?", Integer.class, name);
            jdbc.update("update counter set amount = ? where name = ?", amount + 1, name);
        }

        /** Two keys, held through the caller's commit by the thread's multi-lock. */
        @DistributedLock(keys = {"'counter:' + #name", "'counter-audit:' + #name"})
        public void incrementTwice(String name) {
            jdbc.update("update counter set amount = amount + 2 where name = ?", name);
        }
    }
}
