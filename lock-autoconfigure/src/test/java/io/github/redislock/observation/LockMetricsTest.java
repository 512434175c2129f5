package io.github.redislock.observation;

import io.github.redislock.autoconfigure.RedisLockObservationAutoConfiguration;

import io.github.redislock.core.Internals;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockRedisException;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.autoconfigure.RedisLockAsyncAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The metrics and observations of real lock operations on a real Redis, read from Spring Boot's own SimpleMeterRegistry. */
class LockMetricsTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
            .withConfiguration(BootLine.of(List.of(BootLine.REDIS, BootLine.METRICS), RedisLockAutoConfiguration.class,
                    RedisLockObservationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port());

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void anAcquisitionIsTimedWithLowCardinalityTagsOnly() {
        contextRunner.run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            locker.lock("metrics-acquired-42");
            locker.unlock("metrics-acquired-42");

            Timer timer = meters.get("redis.lock.acquire")
                    .tags("lock.name", "locker", "lock.kind", "reentrant", "lock.result", "acquired", "error", "none").timer();
            assertThat(timer.count()).isEqualTo(1);
            assertThat(meters.getMeters()).allSatisfy(meter -> assertThat(meter.getId().getTags())
                    .noneMatch(tag -> tag.getValue().contains("metrics-acquired-42")));
        });
    }

    @Test
    void anAcquisitionThatWaitsWithoutAThreadIsTimedAndLeavesNoObservationOnTheCallersThread() {
        contextRunner.withConfiguration(AutoConfigurations.of(RedisLockAsyncAutoConfiguration.class)).run(context -> {
            AsyncLocker locker = context.getBean(AsyncLocker.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            ObservationRegistry observations = context.getBean(ObservationRegistry.class);

            LockHandle handle = locker.acquire("metrics-async-42", Duration.ofSeconds(5), null).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(observations.getCurrentObservation()).as("observation left open on the caller's thread").isNull();
            locker.release(handle).toCompletableFuture().get(5, TimeUnit.SECONDS);

            Timer timer = meters.get("redis.lock.acquire")
                    .tags("lock.name", "locker", "lock.kind", "reentrant", "lock.result", "acquired", "error", "none").timer();
            assertThat(timer.count()).isEqualTo(1);
            assertThat(meters.get("redis.lock.hold").tags("lock.kind", "reentrant").timer().count()).isEqualTo(1);
        });
    }

    @Test
    void aWaitThatRunsOutIsTaggedTimedOutAndTimedForTheWholeWait() {
        contextRunner.run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            Future<?> holder = threads.submit(() -> {
                locker.lock("metrics-busy");
                held.countDown();
                done.await();
                locker.unlock("metrics-busy");
                return null;
            });
            assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();

            assertThat(locker.tryLock("metrics-busy", 300, -1, TimeUnit.MILLISECONDS)).isFalse();
            done.countDown();
            holder.get(5, TimeUnit.SECONDS);

            Timer timedOut = meters.get("redis.lock.acquire").tags("lock.result", "timed-out").timer();
            assertThat(timedOut.count()).isEqualTo(1);
            assertThat(timedOut.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(300);
        });
    }

    @Test
    void anAcquisitionRedisRefusesIsTaggedFailedWithTheError() {
        RedisServerProcess gone = TestRedis.startNew();
        gone.stop();
        contextRunner.withPropertyValues("spring.data.redis.port=" + gone.port(), "spring.data.redis.timeout=500ms").run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            assertThatThrownBy(() -> locker.lock("metrics-failed")).isInstanceOf(LockRedisException.class);

            Timer failed = context.getBean(MeterRegistry.class).get("redis.lock.acquire")
                    .tags("lock.result", "failed", "error", "LockRedisException").timer();
            assertThat(failed.count()).isEqualTo(1);
        });
    }

    @Test
    void theHoldTimeIsRecordedAtTheFinalReleaseOnly() {
        contextRunner.run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            locker.lock("metrics-hold");
            locker.lock("metrics-hold");
            locker.unlock("metrics-hold");
            assertThat(meters.find("redis.lock.hold").timer()).isNull();

            locker.unlock("metrics-hold");
            Timer hold = meters.get("redis.lock.hold").tags("lock.name", "locker", "lock.kind", "reentrant").timer();
            assertThat(hold.count()).isEqualTo(1);
        });
    }

    @Test
    void gaugesShowTheLocksHeldAndTheThreadsWaiting() {
        contextRunner.run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            locker.lock("metrics-gauge");
            CountDownLatch acquiredByWaiter = new CountDownLatch(1);
            Future<?> waiter = threads.submit(() -> {
                locker.lock("metrics-gauge");
                acquiredByWaiter.countDown();
                locker.unlock("metrics-gauge");
            });
            await().atMost(Duration.ofSeconds(5)).until(() -> meters.get("redis.lock.waiters").gauge().value() == 1);
            assertThat(meters.get("redis.lock.held").gauge().value()).isEqualTo(1);

            locker.unlock("metrics-gauge");
            assertThat(acquiredByWaiter.await(5, TimeUnit.SECONDS)).isTrue();
            waiter.get(5, TimeUnit.SECONDS);
            assertThat(meters.get("redis.lock.waiters").gauge().value()).isZero();
            assertThat(meters.get("redis.lock.held").gauge().value()).isZero();
        });
    }

    @Test
    void aLockTheWatchdogFindsGoneIsCountedOnceAsLostByTheWatchdog() {
        contextRunner.run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            locker.lock("metrics-lost-watchdog");
            context.getBean(StringRedisTemplate.class).delete("lock:metrics-lost-watchdog");
            Internals.renewNow(context.getBean(RedisLocker.class));

            assertThatThrownBy(() -> locker.unlock("metrics-lost-watchdog")).isInstanceOf(LockLostException.class);
            assertThat(meters.get("redis.lock.lost").tags("lock.name", "locker", "lock.kind", "reentrant", "detected.by", "watchdog")
                    .counter().count()).isEqualTo(1);
            assertThat(meters.find("redis.lock.lost").tags("detected.by", "unlock").counter()).isNull();
            assertThat(meters.get("redis.lock.watchdog.renewals").tags("result", "lost").counter().count()).isEqualTo(1);
        });
    }

    @Test
    void aLeaseThatRanOutBeforeTheUnlockIsCountedAsLostByTheUnlock() {
        contextRunner.run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            locker.lock("metrics-lost-lease", TimeUnit.SECONDS, 10);
            context.getBean(StringRedisTemplate.class).delete("lock:metrics-lost-lease"); // as if the lease ran out

            assertThatThrownBy(() -> locker.unlock("metrics-lost-lease")).isInstanceOf(LockLostException.class);
            assertThat(context.getBean(MeterRegistry.class).get("redis.lock.lost").tags("detected.by", "unlock").counter().count())
                    .isEqualTo(1);
        });
    }

    @Test
    void watchdogRenewalsAreCountedPerLock() {
        contextRunner.run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            locker.lock("metrics-renew-1");
            locker.lock("metrics-renew-2");
            Internals.renewNow(context.getBean(RedisLocker.class)); // the 30 s default timeout keeps the scheduled tick away
            locker.unlock("metrics-renew-1");
            locker.unlock("metrics-renew-2");

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("redis.lock.watchdog.renewals").tags("result", "renewed").counter().count()).isEqualTo(2);
            assertThat(meters.get("redis.lock.watchdog.renewals").tags("result", "failed").counter().count()).isZero();
        });
    }

    @Test
    void aLockNamerBeanNamesTheLocksInTheTags() {
        contextRunner.withBean(LockNamer.class, () -> key -> key.substring(0, key.indexOf(':'))).run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            locker.lock("order:4711");
            locker.unlock("order:4711");

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("redis.lock.acquire").tags("lock.name", "order").timer().count()).isEqualTo(1);
            assertThat(meters.get("redis.lock.hold").tags("lock.name", "order").timer().count()).isEqualTo(1);
        });
    }

    @Test
    void theAcquisitionIsOneObservationThatGivesTracesTheKey() {
        contextRunner.withUserConfiguration(RecordingHandler.class).run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            locker.lock("metrics-traced-7");
            locker.unlock("metrics-traced-7");

            List<Observation.Context> stopped = context.getBean(RecordingHandler.class).stopped;
            assertThat(stopped).hasSize(1);
            Observation.Context observed = stopped.get(0);
            assertThat(observed.getName()).isEqualTo("redis.lock.acquire");
            assertThat(observed.getContextualName()).isEqualTo("lock locker");
            assertThat(observed.getHighCardinalityKeyValue("lock.key").getValue()).isEqualTo("metrics-traced-7");
            assertThat(observed.getLowCardinalityKeyValue("lock.result").getValue()).isEqualTo("acquired");
        });
    }

    /** Stands in for a tracer: Spring Boot registers ObservationHandler beans with the registry. */
    @Configuration(proxyBeanMethods = false)
    static class RecordingHandler {
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Bean
        ObservationHandler<Observation.Context> recordingHandler() {
            return new ObservationHandler<>() {
                @Override
                public void onStop(Observation.Context context) {
                    stopped.add(context);
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return context instanceof LockAcquisitionContext;
                }
            };
        }
    }
}
