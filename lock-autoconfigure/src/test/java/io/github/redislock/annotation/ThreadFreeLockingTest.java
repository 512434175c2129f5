package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * {@link DistributedLock} on future, {@code Mono} and {@code Flux} methods with an AsyncLocker: the
 * call waits for its single-key lock without a thread, and what the blocking path promises still holds
 * (the lock lives as long as the future or stream, a busy lock fails or skips as the annotation says).
 */
class ThreadFreeLockingTest {

    LockerFixture instance;
    /** The proxied object, whose counter the test reads (a class proxy's own fields are not the target's). */
    final Jobs target = new Jobs();
    Jobs jobs;
    String id;

    @BeforeEach
    void proxy() {
        instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(3));
        ProxyFactory proxy = new ProxyFactory(target);
        proxy.setProxyTargetClass(true);
        proxy.addAdvisor(new DistributedLockAdvisor(new DefaultListableBeanFactory(), () -> instance.locker, () -> instance.async,
                () -> Duration.ofSeconds(5), false));
        jobs = (Jobs) proxy.getProxy();
        id = UUID.randomUUID().toString();
    }

    @AfterEach
    void close() {
        instance.close();
    }

    @Test
    void aFutureMethodReturnsAtOnceRunsOnceTheLockIsHeldAndReleasesWhenItsFutureCompletes() throws Exception {
        instance.locker.lock("job:" + id);
        CompletableFuture<String> body = new CompletableFuture<>();
        CompletableFuture<String> result = jobs.later(id, body);
        await().atMost(Duration.ofSeconds(5)).until(() -> instance.async.waitingCount() == 1);
        assertThat(target.bodyRuns).as("body runs while another owner holds the lock").hasValue(0);
        assertThat(result).isNotDone();

        instance.locker.unlock("job:" + id);
        await().atMost(Duration.ofSeconds(5)).until(() -> target.bodyRuns.get() == 1);
        assertThat(instance.locker.isLocked("job:" + id)).as("held while the body's future runs").isTrue();
        CompletableFuture.runAsync(() -> body.complete("done")).join();
        assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
        assertThat(instance.locker.isLocked("job:" + id)).as("released before the caller's future completed").isFalse();
    }

    @Test
    void aFutureMethodWhoseLockStaysBusyFailsItsFutureWithoutRunning() {
        instance.locker.lock("job:" + id);
        try {
            CompletableFuture<String> result = jobs.laterOrFail(id);
            assertThatThrownBy(() -> result.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("job:" + id);
            assertThat(target.bodyRuns).hasValue(0);
        } finally {
            instance.locker.unlock("job:" + id);
        }
    }

    @Test
    void aFluxHoldsTheLockForItsWholeLifeAndACancelledOneReleasesIt() {
        Sinks.Many<Integer> body = Sinks.many().unicast().onBackpressureBuffer();
        Disposable subscription = jobs.stream(id, body.asFlux()).subscribe();
        await().atMost(Duration.ofSeconds(5)).until(() -> instance.locker.isLocked("job:" + id));
        body.tryEmitNext(1);
        assertThat(instance.locker.isLocked("job:" + id)).isTrue();

        subscription.dispose();
        await().atMost(Duration.ofSeconds(5)).until(() -> !instance.locker.isLocked("job:" + id));
        assertThat(instance.locker.heldLockCount()).isZero();
    }

    @Test
    void aFailingFluxReleasesTheLockAndPassesTheErrorOn() {
        Flux<Integer> failing = Flux.concat(Flux.just(1, 2), Flux.error(new IllegalStateException("boom")));
        assertThatThrownBy(() -> jobs.stream(id, failing).collectList().block(Duration.ofSeconds(5))).hasMessage("boom");
        assertThat(instance.locker.isLocked("job:" + id)).isFalse();
        assertThat(jobs.stream(id, Flux.just(3, 4)).collectList().block(Duration.ofSeconds(5))).isEqualTo(List.of(3, 4));
    }

    @Test
    void aBusyLockSkipsAMonoOrFailsAFluxAsTheAnnotationSays() {
        ProxyFactory proxy = new ProxyFactory(new AnnotatedServices.Orders());
        proxy.setProxyTargetClass(true);
        proxy.addAdvisor(new DistributedLockAdvisor(new DefaultListableBeanFactory(), () -> instance.locker, () -> instance.async,
                () -> Duration.ofSeconds(5), false));
        AnnotatedServices.Orders orders = (AnnotatedServices.Orders) proxy.getProxy();
        instance.locker.lock("reactive:" + id);
        try {
            assertThat(orders.monoOrSkip(id).blockOptional(Duration.ofSeconds(5))).isEmpty();
            assertThatThrownBy(() -> orders.fluxOrThrow(id).blockLast(Duration.ofSeconds(5))).isInstanceOf(LockAcquisitionException.class);
            assertThat(instance.async.waitingCount()).isZero();
        } finally {
            instance.locker.unlock("reactive:" + id);
        }
    }

    public static class Jobs {

        final AtomicInteger bodyRuns = new AtomicInteger();

        @DistributedLock(key = "'job:' + #id")
        public CompletableFuture<String> later(String id, CompletableFuture<String> body) {
            bodyRuns.incrementAndGet();
            return body;
        }

        @DistributedLock(key = "'job:' + #id", waitTime = 200)
        public CompletableFuture<String> laterOrFail(String id) {
            bodyRuns.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(key = "'job:' + #id")
        public Flux<Integer> stream(String id, Flux<Integer> body) {
            return body;
        }
    }
}
