package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;
import io.github.redislock.core.OverlapDetector;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** {@link DistributedLock} on real beans in real application contexts, with a real Redis. */
class DistributedLockTest {

    static final ApplicationContextRunner APPLICATION = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(AopAutoConfiguration.class, RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withUserConfiguration(AnnotatedServices.class)
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(),
                    "spring.data.redis.port=" + TestRedis.shared().port(),
                    "redis-lock.watchdog-timeout=2s",
                    "app.lock.namespace=configured");

    String sku;

    @BeforeEach
    void newSku() {
        sku = "sku-" + UUID.randomUUID();
    }

    @Test
    void twoApplicationInstancesNeverRunTheSameKeyAtOnce() {
        APPLICATION.run(first -> APPLICATION.run(second -> {
            try (OverlapDetector section = new OverlapDetector(first.getBean(StringRedisTemplate.class), "counter-" + sku)) {
                runConcurrently(8, 25, i -> (i % 2 == 0 ? first : second).getBean(AnnotatedServices.Stock.class).buy(sku, section::pass));
                section.assertEveryPassWasAlone(8 * 25);
            }
            assertThat(first.getBean(Locker.class).isLocked("stock:" + sku)).isFalse();
        }));
    }

    @Test
    void aBusyKeyThrowsLockAcquisitionExceptionNamingKeyAndWaitAndDoesNotRunTheMethod() {
        APPLICATION.run(context -> holdingElsewhere(context, "stock:" + sku, () -> {
            AnnotatedServices.Stock stock = context.getBean(AnnotatedServices.Stock.class);
            assertThatThrownBy(() -> stock.reserve(sku))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("stock:" + sku)
                    .hasMessageContaining("PT0.2S");
            assertThat(stock.runCount()).isZero();
        }));
    }

    @Test
    void skipReturnsNullOrEmptyWithoutRunningTheMethod() {
        APPLICATION.run(context -> holdingElsewhere(context, "stock:" + sku, () -> {
            AnnotatedServices.Stock stock = context.getBean(AnnotatedServices.Stock.class);
            assertThat(stock.reserveOrSkip(sku)).isNull();
            assertThat(stock.findOrSkip(sku)).isEqualTo(Optional.empty());
            assertThat(stock.runCount()).isZero();
        }));
    }

    @Test
    void aFallbackMethodRunsInsteadAndMayReceiveTheFailure() {
        APPLICATION.run(context -> holdingElsewhere(context, "stock:" + sku, () -> {
            AnnotatedServices.Stock stock = context.getBean(AnnotatedServices.Stock.class);
            assertThat(stock.reserveOrFallBack(sku)).isEqualTo("queued " + sku + " because stock:" + sku + " was busy");
            assertThat(stock.reserveOrPlainFallBack(sku)).isEqualTo("fallback " + sku);
        }));
        APPLICATION.run(context -> assertThat(context.getBean(AnnotatedServices.Stock.class).reserveOrFallBack(sku)).isEqualTo("reserved " + sku));
    }

    @Test
    void keysResolveParametersByIndexBeansPlaceholdersAndRoot() {
        APPLICATION.run(context -> {
            AnnotatedServices.Stock stock = context.getBean(AnnotatedServices.Stock.class);
            assertThat(stock.byIndex(sku, 7)).isEqualTo("held stock:" + sku + ":7");
            assertThat(stock.byBean(sku)).isEqualTo("held stock:eu:" + sku);
            assertThat(stock.byPlaceholder(sku)).isEqualTo("held configured:" + sku);
            assertThat(stock.byRoot()).isEqualTo("held byRoot:Stock");
        });
    }

    @Test
    void theKeyIsEvaluatedBeforeTheMethodSoMutatingArgumentsChangesNothing() {
        APPLICATION.run(context -> {
            String[] holder = {sku};
            context.getBean(AnnotatedServices.Stock.class).mutatesItsArgument(holder);
            assertThat(holder[0]).isEqualTo("changed");
            assertThat(context.getBean(Locker.class).isLocked("stock:" + sku)).isFalse();
        });
    }

    @Test
    void aNullKeyIsRefusedNamingMethodExpressionAndArgumentTypesWithoutRunningIt() {
        APPLICATION.run(context -> {
            AnnotatedServices.Stock stock = context.getBean(AnnotatedServices.Stock.class);
            assertThatThrownBy(() -> stock.waitsAsConfigured(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Stock#waitsAsConfigured")
                    .hasMessageContaining("\"#sku\"")
                    .hasMessageContaining("evaluated to null")
                    .hasMessageContaining("[null]");
        });
    }

    @Test
    void aReentrantCallWithTheSameKeyHoldsTheLockTwice() {
        APPLICATION.run(context -> {
            AnnotatedServices.Stock stock = context.getBean(AnnotatedServices.Stock.class);
            assertThat(stock.reentrantOuter(sku)).isEqualTo(3);
            assertThat(context.getBean(Locker.class).isLocked("stock:" + sku)).isFalse();
        });
    }

    @Test
    void interfaceMethodsAndComposedAnnotationsAreLocked() {
        APPLICATION.run(context -> {
            AnnotatedServices.Orders orders = context.getBean(AnnotatedServices.Orders.class);
            assertThat(orders.process(sku)).isEqualTo("locked");
            assertThat(orders.ship(sku)).isEqualTo("locked");
        });
    }

    @Test
    void aWaitGivenAsAPlaceholderIsResolvedFromTheEnvironment() {
        APPLICATION.withPropertyValues("app.lock.wait=1ms").run(context -> holdingElsewhere(context, sku, () -> {
            long start = System.nanoTime();
            assertThatThrownBy(() -> context.getBean(AnnotatedServices.Stock.class).waitsAsConfigured(sku))
                    .isInstanceOf(LockAcquisitionException.class).hasMessageContaining("PT0.001S");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(1000);
        }));
    }

    @Test
    void anApplicationsOwnLockerRunsAnnotatedMethodsWithTheAutoConfigurationSwitchedOff() {
        APPLICATION.withPropertyValues("redis-lock.enabled=false", "redis-lock.default-wait-time=1s").withUserConfiguration(OwnLocker.class)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RedisLockProperties.class);
                    AtomicInteger runs = new AtomicInteger();
                    context.getBean(AnnotatedServices.Stock.class).buy(sku, runs::incrementAndGet);
                    assertThat(runs).hasValue(1);
                    holdingElsewhere(context, "stock:" + sku, () -> assertThatThrownBy(() -> context.getBean(AnnotatedServices.Stock.class).buy(sku, runs::incrementAndGet))
                            .isInstanceOf(LockAcquisitionException.class).hasMessageContaining("PT1S"));
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLocker {

        @Bean(destroyMethod = "close")
        RedisLocker ownLocker(RedisConnectionFactory connectionFactory) {
            return RedisLocker.builder(connectionFactory).build();
        }
    }

    @Test
    void theAdvisorLooksTheLockerUpOnFirstUseOnlyNotOnEveryCall() {
        APPLICATION.run(context -> {
            Locker locker = context.getBean(Locker.class);
            AtomicInteger lookups = new AtomicInteger();
            DistributedLockAdvisor advisor = new DistributedLockAdvisor(context.getBeanFactory(), () -> {
                lookups.incrementAndGet();
                return locker;
            }, () -> Duration.ofSeconds(1), false);
            ProxyFactory proxy = new ProxyFactory(new AnnotatedServices.Stock());
            proxy.setProxyTargetClass(true);
            proxy.addAdvisor(advisor);
            AnnotatedServices.Stock stock = (AnnotatedServices.Stock) proxy.getProxy();
            assertThat(lookups).hasValue(0);
            for (int call = 0; call < 3; call++) {
                assertThat(stock.reserve(sku)).isEqualTo("reserved " + sku);
            }
            assertThat(stock.runCount()).isEqualTo(3);
            assertThat(lookups).hasValue(1);
            assertThat(locker.isLocked("stock:" + sku)).isFalse();
        });
    }

    @Test
    void aDefaultWaitTimeChangedAfterTheFirstCallAppliesToTheNextOne() {
        APPLICATION.run(context -> {
            AnnotatedServices.Stock stock = context.getBean(AnnotatedServices.Stock.class);
            stock.buy("free-" + sku, () -> { }); // the first call looks everything up
            context.getBean(RedisLockProperties.class).setDefaultWaitTime(Duration.ofMillis(50));
            holdingElsewhere(context, "stock:" + sku, () -> assertThatThrownBy(() -> stock.buy(sku, () -> { }))
                    .isInstanceOf(LockAcquisitionException.class).hasMessageContaining("PT0.05S"));
        });
    }

    @Test
    void methodsLockingOverlappingKeysInOppositeOrderNeverDeadlock() {
        APPLICATION.run(first -> APPLICATION.run(second -> {
            String a = "a-" + sku;
            String b = "b-" + sku;
            try (OverlapDetector section = new OverlapDetector(first.getBean(StringRedisTemplate.class), "counter-" + sku)) {
                runConcurrently(4, 25, i -> {
                    AnnotatedServices.Stock stock = (i % 2 == 0 ? first : second).getBean(AnnotatedServices.Stock.class);
                    if (i % 4 < 2) {
                        stock.transfer(a, b, section::pass);
                    } else {
                        stock.transfer(b, a, section::pass);
                    }
                });
                section.assertEveryPassWasAlone(4 * 25);
            }
            assertThat(first.getBean(Locker.class).isLocked("account:" + a)).isFalse();
            assertThat(first.getBean(Locker.class).isLocked("account:" + b)).isFalse();
        }));
    }

    @Test
    void aCompletableFutureKeepsTheLockUntilItCompletes() {
        APPLICATION.run(context -> {
            AnnotatedServices.Orders orders = context.getBean(AnnotatedServices.Orders.class);
            Locker locker = context.getBean(Locker.class);
            CompletableFuture<String> body = new CompletableFuture<>();
            CompletableFuture<String> result = orders.later(sku, body);
            assertThat(locker.isLocked("async:" + sku)).isTrue();
            assertThat(orders.laterOrFail(sku)).isCompletedExceptionally();

            CompletableFuture.runAsync(() -> body.complete("done")).join(); // completes on another thread
            assertThat(result.join()).isEqualTo("done");
            assertThat(locker.isLocked("async:" + sku)).isFalse();
        });
    }

    @Test
    void aMonoHoldsTheLockFromSubscribeToCompletion() {
        APPLICATION.run(context -> {
            AnnotatedServices.Orders orders = context.getBean(AnnotatedServices.Orders.class);
            Locker locker = context.getBean(Locker.class);
            reactor.core.publisher.Sinks.One<String> body = reactor.core.publisher.Sinks.one();
            reactor.core.publisher.Mono<String> mono = orders.monoFor(sku, body.asMono());
            assertThat(locker.isLocked("reactive:" + sku)).as("nothing happens before subscribe").isFalse();

            CompletableFuture<String> result = mono.toFuture();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> locker.isLocked("reactive:" + sku));
            assertThat(orders.monoOrSkip(sku).block(Duration.ofSeconds(5))).as("skipped while held").isNull();
            assertThatThrownBy(() -> orders.fluxOrThrow(sku).blockLast(Duration.ofSeconds(5))).isInstanceOf(LockAcquisitionException.class);

            body.tryEmitValue("done");
            assertThat(result.join()).isEqualTo("done");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !locker.isLocked("reactive:" + sku));
        });
    }

    @Test
    void aCancelledFluxReleasesTheLock() {
        APPLICATION.run(context -> {
            AnnotatedServices.Orders orders = context.getBean(AnnotatedServices.Orders.class);
            Locker locker = context.getBean(Locker.class);
            reactor.core.Disposable subscription = orders.fluxFor(sku, reactor.core.publisher.Flux.never()).subscribe();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> locker.isLocked("reactive:" + sku));
            subscription.dispose();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !locker.isLocked("reactive:" + sku));
        });
    }

    @Test
    void aFailingFluxReleasesTheLockAndPassesTheErrorOn() {
        APPLICATION.run(context -> {
            AnnotatedServices.Orders orders = context.getBean(AnnotatedServices.Orders.class);
            Locker locker = context.getBean(Locker.class);
            reactor.core.publisher.Flux<Integer> failing = reactor.core.publisher.Flux.concat(
                    reactor.core.publisher.Flux.just(1, 2), reactor.core.publisher.Flux.error(new IllegalStateException("boom")));
            assertThatThrownBy(() -> orders.fluxFor(sku, failing).collectList().block(Duration.ofSeconds(5))).hasMessageContaining("boom");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !locker.isLocked("reactive:" + sku));
        });
    }

    /** Runs {@code action} while another application instance's thread holds {@code key}. */
    private static void holdingElsewhere(ApplicationContext context, String key, Runnable action) {
        APPLICATION.run(other -> {
            Locker otherLocker = other.getBean(Locker.class);
            ExecutorService holder = Executors.newSingleThreadExecutor();
            try {
                holder.submit(() -> otherLocker.lock(key)).get(5, TimeUnit.SECONDS);
                action.run();
                holder.submit(() -> otherLocker.unlock(key)).get(5, TimeUnit.SECONDS);
            } finally {
                holder.shutdownNow();
            }
        });
    }

    interface Section {
        void run(int index) throws Exception;
    }

    private static void runConcurrently(int threads, int iterations, Section section) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < iterations; i++) {
                        section.run(thread);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

}
