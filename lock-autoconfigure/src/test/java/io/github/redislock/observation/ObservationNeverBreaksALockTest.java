package io.github.redislock.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.List;

import io.github.redislock.LockObserver;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockObservationAutoConfiguration;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.GlobalObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Metrics and traces are extras: a lock namer, observation convention or observer that throws is
 * logged once and the lock is taken and released as if nobody observed it.
 */
@ExtendWith(OutputCaptureExtension.class)
class ObservationNeverBreaksALockTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.METRICS), RedisLockAutoConfiguration.class,
                    RedisLockObservationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port());

    @Test
    void aNamerThatThrowsForAKeyLeavesTheLockWorkingAndNamesItLocker(CapturedOutput output) {
        contextRunner.withUserConfiguration(NamerBeforeTheFirstColon.class).run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);

            locker.lock("observed-catalog");
            locker.unlock("observed-catalog");
            RedisReadWriteLock catalog = locker.getReadWriteLock("observed-catalog-rw");
            catalog.writeLock().lock();
            catalog.writeLock().unlock();

            assertThat(meters.get("redis.lock.acquire").tags("lock.name", LockNamer.DEFAULT_NAME, "lock.result", "acquired")
                    .timers()).extracting(timer -> timer.count()).containsOnly(1L);
            assertThat(meters.get("redis.lock.hold").tags("lock.name", LockNamer.DEFAULT_NAME).timers()).isNotEmpty();
            assertNoKeyLeft(context.getBean(StringRedisTemplate.class), "observed-catalog");
            assertThat(output.getOut()).containsOnlyOnce("LockNamer").contains("observed-catalog");
        });
    }

    @Test
    void anObserverThatThrowsOnAcquiredAndReleasedLeavesLockTryLockAndUnlockWorking(CapturedOutput output) {
        contextRunner.withUserConfiguration(ObserverThatThrows.class).run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);

            locker.lock("observed-throwing");
            assertThat(locker.isHeldByCurrentThread("observed-throwing")).isTrue();
            locker.unlock("observed-throwing");
            assertThat(locker.tryLock("observed-throwing")).isTrue();
            locker.unlock("observed-throwing");

            assertThat(locker.isLocked("observed-throwing")).isFalse();
            assertNoKeyLeft(context.getBean(StringRedisTemplate.class), "observed-throwing");
            assertThat(output.getOut()).containsOnlyOnce("observer failed");
        });
    }

    @Test
    void anObserverThatThrowsOnAcquisitionsAndRenewalsIsWarnedAboutOnce(CapturedOutput output) {
        LettuceConnectionFactory factory = LockerFixture.startedLettuce(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(5));
        RedisLocker locker = RedisLocker.builder(factory).keyPrefix("lock:").observer(new LockObserver() {
            @Override
            public void released(ObservedLock lock, long heldNanos) {
                throw new IllegalStateException("released " + lock.key());
            }

            @Override
            public void renewed(int renewed, int lost) {
                throw new IllegalStateException("renewed " + renewed);
            }
        }).build();
        try {
            locker.lock("observed-renewing");
            Internals.renewNow(locker);
            locker.unlock("observed-renewing");

            // The locker and its watchdog share one fail-safe observer: its first failure, whichever, is the only WARN.
            assertThat(output.getOut()).containsOnlyOnce("observer failed");
        } finally {
            locker.close();
            factory.destroy();
        }
    }

    @Test
    void anObservationConventionThatThrowsLeavesTheLockWorking(CapturedOutput output) {
        contextRunner.withUserConfiguration(ConventionThatThrows.class).run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);

            locker.lock("observed-convention");
            locker.unlock("observed-convention");
            assertThat(locker.tryLock("observed-convention")).isTrue();
            locker.unlock("observed-convention");

            assertNoKeyLeft(context.getBean(StringRedisTemplate.class), "observed-convention");
            assertThat(output.getOut()).containsOnlyOnce("observer failed");
        });
    }

    @Test
    void anObservationHandlerThatThrowsOnOpeningTheScopeLeavesNoObservationOnTheThread() {
        leavesNoObservationOnTheThread("onScopeOpened", "observed-scope-opened");
    }

    @Test
    void anObservationHandlerThatThrowsOnClosingTheScopeLeavesNoObservationOnTheThread() {
        leavesNoObservationOnTheThread("onScopeClosed", "observed-scope-closed");
    }

    @Test
    void anObservationHandlerThatThrowsOnStartLeavesNoObservationRunning() {
        leavesNoObservationOnTheThread("onStart", "observed-start");
    }

    @Test
    void anObservationHandlerThatThrowsOnAFailedAcquisitionsErrorLeavesNoObservationOnTheThread() {
        contextRunner.withBean(HandlerThatThrows.class, () -> new HandlerThatThrows("onError")).run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            ObservationRegistry observations = context.getBean(ObservationRegistry.class);

            Thread.currentThread().interrupt();
            assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> locker.lockInterruptibly("observed-error"));

            assertThat(observations.getCurrentObservation()).as("the acquisition's observation is still the thread's current one").isNull();
            assertThat(context.getBean(MeterRegistry.class).get("redis.lock.acquire.active").longTaskTimer().activeTasks())
                    .as("the acquisition's observation was never stopped").isZero();
            assertNoKeyLeft(context.getBean(StringRedisTemplate.class), "observed-error");
        });
    }

    /** A scope left open would make every later observation of the thread a child of this lock's acquisition. */
    private void leavesNoObservationOnTheThread(String failingCallback, String key) {
        contextRunner.withBean(HandlerThatThrows.class, () -> new HandlerThatThrows(failingCallback)).run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            ObservationRegistry observations = context.getBean(ObservationRegistry.class);

            locker.lock(key);
            assertThat(locker.isHeldByCurrentThread(key)).isTrue();
            locker.unlock(key);

            assertThat(observations.getCurrentObservation()).as("the acquisition's observation is still the thread's current one").isNull();
            assertThat(context.getBean(MeterRegistry.class).get("redis.lock.acquire.active").longTaskTimer().activeTasks())
                    .as("the acquisition's observation was never stopped").isZero();
            assertNoKeyLeft(context.getBean(StringRedisTemplate.class), key);
        });
    }

    private static void assertNoKeyLeft(StringRedisTemplate redis, String key) {
        assertThat(redis.hasKey("lock:" + key)).as("the lock's key left in Redis").isFalse();
    }

    @Configuration(proxyBeanMethods = false)
    static class NamerBeforeTheFirstColon {
        /** The example the manual once gave: fails for every key without a colon. */
        @Bean
        LockNamer lockNamer() {
            return key -> key.substring(0, key.indexOf(':'));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ObserverThatThrows {
        @Bean
        LockObserver throwingObserver() {
            return new LockObserver() {
                @Override
                public Acquisition acquisitionStarted(ObservedLock lock) {
                    return new Acquisition() {
                        @Override
                        public void acquired() {
                            throw new IllegalStateException("acquired " + lock.key());
                        }
                    };
                }

                @Override
                public void released(ObservedLock lock, long heldNanos) {
                    throw new IllegalStateException("released " + lock.key());
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ConventionThatThrows {
        @Bean
        GlobalObservationConvention<LockAcquisitionContext> throwingConvention() {
            return new GlobalObservationConvention<>() {
                @Override
                public String getName() {
                    return DefaultLockAcquisitionConvention.NAME;
                }

                @Override
                public KeyValues getLowCardinalityKeyValues(LockAcquisitionContext context) {
                    throw new IllegalStateException("no tags for " + context.getLock().key());
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return context instanceof LockAcquisitionContext;
                }
            };
        }
    }

    /** An observation handler (a tracer's, say) that fails on one of its callbacks for a lock's acquisition. */
    record HandlerThatThrows(String on) implements ObservationHandler<LockAcquisitionContext> {

        @Override
        public void onStart(LockAcquisitionContext context) {
            failIfOn("onStart", context);
        }

        @Override
        public void onError(LockAcquisitionContext context) {
            failIfOn("onError", context);
        }

        @Override
        public void onScopeOpened(LockAcquisitionContext context) {
            failIfOn("onScopeOpened", context);
        }

        @Override
        public void onScopeClosed(LockAcquisitionContext context) {
            failIfOn("onScopeClosed", context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context instanceof LockAcquisitionContext;
        }

        private void failIfOn(String callback, LockAcquisitionContext context) {
            if (on.equals(callback)) {
                throw new IllegalStateException(callback + " fails for " + context.getLock().key());
            }
        }
    }
}
