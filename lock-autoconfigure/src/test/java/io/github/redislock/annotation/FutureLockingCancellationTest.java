package io.github.redislock.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/**
 * {@link DistributedLock} on a method returning a {@code CompletableFuture}, whose caller cancels the
 * future while the lock is still awaited: like a cancelled {@code Mono} or {@code AsyncLocker.withLock},
 * the call gives up its place in the lock's queue and its body never runs.
 */
class FutureLockingCancellationTest {

    private final String id = UUID.randomUUID().toString();
    private final AtomicInteger bodyRuns = new AtomicInteger();
    private LockerFixture instance;

    @AfterEach
    void disconnect() {
        if (instance != null) {
            instance.close();
        }
    }

    @Test
    void aFutureCallCancelledWhileWaitingWithdrawsItsPlaceAndNeverRunsItsBody() {
        Exports exports = exportsOnSharedRedis();
        String key = "export:" + id;
        instance.locker.lock(key);
        CompletableFuture<String> call = exports.export(id);
        await("the call waiting for " + key).atMost(Duration.ofSeconds(5)).until(() -> instance.async.waitingCount() == 1);

        call.cancel(false);

        await("the cancelled call's wait withdrawn").atMost(Duration.ofSeconds(2)).until(() -> instance.async.waitingCount() == 0);
        instance.locker.unlock(key);
        assertThat(instance.locker.isLocked(key)).as("the lock handed to nobody after its holder unlocked").isFalse();
        assertThat(bodyRuns).as("runs of the cancelled call's body").hasValue(0);
    }

    private Exports exportsOnSharedRedis() {
        instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(3));
        ProxyFactory proxy = new ProxyFactory(new Exports(bodyRuns));
        proxy.setProxyTargetClass(true);
        proxy.addAdvisor(new DistributedLockAdvisor(new DefaultListableBeanFactory(), () -> instance.locker, () -> instance.async,
                () -> Duration.ofSeconds(1), false));
        return (Exports) proxy.getProxy();
    }

    public static class Exports {
        private final AtomicInteger runs;

        public Exports() {
            this(new AtomicInteger());
        }

        Exports(AtomicInteger runs) {
            this.runs = runs;
        }

        @DistributedLock(key = "'export:' + #id", waitTime = 20_000)
        public CompletableFuture<String> export(String id) {
            runs.incrementAndGet();
            return CompletableFuture.completedFuture("exported " + id);
        }
    }
}
