package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;


import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAnnotationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockRedlockAutoConfiguration;
import io.github.redislock.core.RedlockLocker;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/**
 * Redlock offers plain locks only: an annotated method that could never take its lock there (several
 * keys, a multi-lock) stops the application at startup instead of failing on every call.
 */
class DistributedLockOnRedlockTest {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    private final ApplicationContextRunner application = new ApplicationContextRunner()
            .withConfiguration(BootLine.redisAnd(AopAutoConfiguration.class, RedisLockRedlockAutoConfiguration.class,
                    RedisLockAutoConfiguration.class, RedisLockAnnotationAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port());

    private ApplicationContextRunner onRedlock() {
        return application.withPropertyValues("redis-lock.redlock.node-timeout=1s",
                "redis-lock.redlock.nodes=" + masters.urls());
    }

    @Test
    void severalKeysOnARedlockLockerStopStartupNamingTheMethodAndTheProperty() {
        onRedlock().withBean(TransferService.class).run(context -> assertThat(context).getFailure()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("@DistributedLock on DistributedLockOnRedlockTest.TransferService#transfer")
                .hasMessageContaining("keys")
                .hasMessageContaining("redis-lock.redlock.nodes"));
    }

    @Test
    void aSingleKeyOnARedlockLockerStartsAndLocks() {
        onRedlock().withBean(StockService.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(StockService.class).reserve("42")).isTrue();
            assertThat(masters.copiesOf("lock:redlock-stock:42")).isZero();
        });
    }

    /**
     * Redlock has no AsyncLocker: a Mono method takes its lock with the blocking Locker on the bounded-elastic
     * scheduler. A subscription cancelled as that acquisition runs, before or after its grant (both orders
     * occur over the rounds), must give back what it got: each next call still takes the lock within its
     * wait, and no copy stays on any master.
     */
    @Test
    void aMonoCancelledWhileItsLockIsTakenGivesItBackOnEveryMaster() {
        onRedlock().withBean(ReactiveStockService.class).run(context -> {
            ReactiveStockService service = context.getBean(ReactiveStockService.class);
            RedlockLocker locker = (RedlockLocker) context.getBean(Locker.class);
            for (int round = 1; round <= 20; round++) {
                service.reserve("7").subscribe().dispose();

                assertThat(service.reserve("7").block(Duration.ofSeconds(10))).as("round %d: the next call took the lock", round).isTrue();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> locker.heldLockCount() == 0 && masters.copiesOf("lock:redlock-reactive:7") == 0);
        });
    }

    @Test
    void severalKeysWithoutRedlockStillStart() {
        application.withBean(TransferService.class).run(context -> assertThat(context).hasNotFailed());
    }

    static class TransferService {
        @DistributedLock(keys = {"'redlock-account:' + #from", "'redlock-account:' + #to"})
        public void transfer(String from, String to) {
        }
    }

    static class ReactiveStockService {
        @DistributedLock(key = "'redlock-reactive:' + #sku", waitTime = 5, timeUnit = TimeUnit.SECONDS)
        public Mono<Boolean> reserve(String sku) {
            return Mono.just(true); // assembled only once the lock is held; a call that could not take it fails instead
        }
    }

    static class StockService {
        private final Locker locker;

        StockService(Locker locker) {
            this.locker = locker;
        }

        @DistributedLock(key = "'redlock-stock:' + #sku")
        public boolean reserve(String sku) {
            return locker instanceof RedlockLocker && locker.isHeldByCurrentThread("redlock-stock:" + sku);
        }
    }
}
