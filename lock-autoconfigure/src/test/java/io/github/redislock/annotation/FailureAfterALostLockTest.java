package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostException;
import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAsyncAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An annotated method that fails after its lease ran out fails with its own exception, and the loss of
 * its lock comes with it (a suppressed {@link LockLostException}): neither hides the other, whichever
 * way the method returns (on the calling thread, a future of several keys, a future through the AsyncLocker).
 */
class FailureAfterALostLockTest {

    private static final long LEASE_MILLIS = 300;

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
                    RedisLockAsyncAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withBean(Jobs.class)
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    private final String id = UUID.randomUUID().toString();

    @Test
    void aMethodOnTheCallingThreadThrowsItsOwnExceptionWithTheLossSuppressed() {
        application.run(context -> assertOwnFailureWithTheLoss(catchThrowable(() -> context.getBean(Jobs.class).onThread(id))));
    }

    @Test
    void aFutureMethodOfSeveralKeysThatThrowsThrowsItsOwnExceptionWithTheLossSuppressed() {
        application.run(context -> assertOwnFailureWithTheLoss(catchThrowable(() -> context.getBean(Jobs.class).severalKeys(id))));
    }

    @Test
    void aFutureMethodWhoseFutureFailsFailsWithItsOwnExceptionWithTheLossSuppressed() {
        application.run(context -> {
            CompletableFuture<String> result = context.getBean(Jobs.class).failingFuture(id);
            Throwable failure = catchThrowable(() -> result.get(5, TimeUnit.SECONDS));
            assertThat(failure).isInstanceOf(ExecutionException.class);
            assertOwnFailureWithTheLoss(failure.getCause());
        });
    }

    @Test
    void aMonoMethodThatErrorsErrorsWithItsOwnExceptionWithTheLossSuppressed() {
        application.run(context -> assertOwnFailureWithTheLoss(catchThrowable(() -> context.getBean(Jobs.class).failingMono(id).block(Duration.ofSeconds(5)))));
    }

    @Test
    void aFluxMethodOfSeveralKeysThatErrorsErrorsWithItsOwnExceptionWithTheLossSuppressed() {
        application.run(context -> assertOwnFailureWithTheLoss(catchThrowable(() -> context.getBean(Jobs.class).failingFlux(id).blockLast(Duration.ofSeconds(5)))));
    }

    private static void assertOwnFailureWithTheLoss(Throwable failure) {
        assertThat(failure).as("the method's own exception").isInstanceOf(IllegalStateException.class).hasMessage("the job failed");
        assertThat(failure.getSuppressed()).as("the loss of its lock, suppressed").hasAtLeastOneElementOfType(LockLostException.class);
    }

    static class Jobs {
        @Autowired
        Locker locker;

        @DistributedLock(key = "'lost-on-thread:' + #id", leaseTime = LEASE_MILLIS)
        public void onThread(String id) {
            awaitExpired("lost-on-thread:" + id);
            throw new IllegalStateException("the job failed");
        }

        @DistributedLock(keys = {"'lost-a:' + #id", "'lost-b:' + #id"}, leaseTime = LEASE_MILLIS)
        public CompletableFuture<String> severalKeys(String id) {
            awaitExpired("lost-a:" + id);
            awaitExpired("lost-b:" + id);
            throw new IllegalStateException("the job failed");
        }

        @DistributedLock(key = "'lost-future:' + #id", leaseTime = LEASE_MILLIS)
        public CompletableFuture<String> failingFuture(String id) {
            return CompletableFuture.supplyAsync(() -> {
                awaitExpired("lost-future:" + id);
                throw new IllegalStateException("the job failed");
            });
        }

        @DistributedLock(key = "'lost-mono:' + #id", leaseTime = LEASE_MILLIS)
        public Mono<String> failingMono(String id) {
            return Mono.fromCallable(() -> {
                awaitExpired("lost-mono:" + id);
                throw new IllegalStateException("the job failed");
            });
        }

        @DistributedLock(keys = {"'lost-flux-a:' + #id", "'lost-flux-b:' + #id"}, leaseTime = LEASE_MILLIS)
        public Flux<String> failingFlux(String id) {
            return Flux.defer(() -> {
                awaitExpired("lost-flux-a:" + id);
                awaitExpired("lost-flux-b:" + id);
                return Flux.error(new IllegalStateException("the job failed"));
            });
        }

        private void awaitExpired(String key) {
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> !locker.isLocked(key));
        }
    }
}
