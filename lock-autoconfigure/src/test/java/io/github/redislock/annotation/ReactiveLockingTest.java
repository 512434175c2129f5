package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * {@link DistributedLock} on methods returning a {@code Mono}: every subscription is one locked call,
 * and a subscription cancelled at any moment leaves no lock behind.
 */
class ReactiveLockingTest {

    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(3);

    LockerFixture instance;
    final AtomicInteger innerAdviceRuns = new AtomicInteger();
    String id;

    @BeforeEach
    void newId() {
        id = UUID.randomUUID().toString();
    }

    @AfterEach
    void disconnect() {
        if (instance != null) {
            instance.close();
        }
    }

    /** The annotated service, proxied with the lock's advice and one inside it, as {@code @Transactional} would be. */
    private Reports reportsOn(RedisServerProcess redis) {
        instance = LockerFixture.connect(redis.host(), redis.port(), WATCHDOG_TIMEOUT);
        ProxyFactory proxy = new ProxyFactory(new Reports());
        proxy.setProxyTargetClass(true);
        proxy.addAdvisor(new DistributedLockAdvisor(new DefaultListableBeanFactory(), () -> instance.locker, () -> instance.async,
                () -> Duration.ofSeconds(1), false));
        proxy.addAdvice((MethodInterceptor) invocation -> {
            innerAdviceRuns.incrementAndGet();
            return invocation.proceed();
        });
        return (Reports) proxy.getProxy();
    }

    @Test
    void eachSubscriptionRunsTheWholeAdviceChainAgain() {
        Reports reports = reportsOn(TestRedis.shared());
        Mono<String> report = reports.build(id);
        assertThat(report.block(Duration.ofSeconds(5))).isEqualTo("built " + id);
        assertThat(report.block(Duration.ofSeconds(5))).isEqualTo("built " + id);

        assertThat(innerAdviceRuns).as("runs of the advice inside the lock's").hasValue(2);
        assertThat(instance.locker.isLocked("report:" + id)).isFalse();
    }

    @Test
    void aSubscriptionCancelledWhileTheLockIsBeingTakenReleasesWhatItGot() throws Exception {
        try (RedisServerProcess redis = TestRedis.startNew()) { // a Redis of its own: the test pauses it
            Reports reports = reportsOn(redis);
            assertThat(reports.build(id).block(Duration.ofSeconds(5))).isEqualTo("built " + id); // connected, script loaded
            redis.command("CLIENT", "PAUSE", "800");
            Disposable subscription = reports.never(id).subscribe();
            Thread.sleep(300); // the acquisition's script call now waits in the paused Redis
            subscription.dispose();

            // The script runs when the pause ends and takes the lock for a subscriber that is gone.
            await().atMost(Duration.ofMillis(1500)).until(() -> !instance.locker.isLocked("report:" + id));
            assertThat(instance.locker.heldLockCount()).as("holds left").isZero();
            assertThat(instance.locker.watchdogState().watchedCount()).as("locks still renewed").isZero();
            instance.close();
        }
    }

    @Test
    void twoHundredSubscriptionsWaitingForAHeldLockHoldNoThread() {
        Reports reports = reportsOn(TestRedis.shared());
        assertThat(reports.build(id).block(Duration.ofSeconds(5))).isEqualTo("built " + id); // connected before the baseline
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        instance.locker.lock("report:" + id);
        threads.resetPeakThreadCount();
        int baseline = threads.getThreadCount();

        List<String> built = new CopyOnWriteArrayList<>();
        List<Disposable> waiting = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            waiting.add(reports.buildPatiently(id).subscribe(built::add));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> instance.async.waitingCount() == 200);
        int whileWaiting = threads.getPeakThreadCount();
        instance.locker.unlock("report:" + id);
        await().atMost(Duration.ofSeconds(20)).until(() -> built.size() == 200);

        System.out.printf("200 waiting @DistributedLock Monos: live threads baseline %d, peak while waiting %d, peak overall %d%n",
                baseline, whileWaiting, threads.getPeakThreadCount());
        assertThat(whileWaiting - baseline).as("threads added while 200 subscriptions waited").isLessThanOrEqualTo(4);
        assertThat(threads.getPeakThreadCount() - baseline).as("threads added until all were served").isLessThanOrEqualTo(8);
        assertThat(waiting).allMatch(Disposable::isDisposed);
        await().atMost(Duration.ofSeconds(5)).until(() -> !instance.locker.isLocked("report:" + id));
    }

    public static class Reports {

        @DistributedLock(key = "'report:' + #id", waitTime = 20_000)
        public Mono<String> buildPatiently(String id) {
            return Mono.fromCallable(() -> "built " + id);
        }

        @DistributedLock(key = "'report:' + #id")
        public Mono<String> build(String id) {
            return Mono.fromCallable(() -> "built " + id);
        }

        @DistributedLock(key = "'report:' + #id")
        public Mono<String> never(String id) {
            return Mono.never();
        }
    }
}
