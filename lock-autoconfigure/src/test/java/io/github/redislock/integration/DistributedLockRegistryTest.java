package io.github.redislock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostException;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockIntegrationAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockLeaderAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.ResolvableType;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration 7's {@link DistributedLock} on our registry (the Boot 4 line only: Spring Integration
 * 6.5 has no such type, so the Boot 3.5 module leaves this class out). The time-to-live scenarios of
 * Spring Integration's own {@code RedisLockRegistryTests}, on two instances whose watchdog timeout is
 * 300 ms, with what a time to live means here: a lease of ours.
 */
class DistributedLockRegistryTest {

    private static final Duration WATCHDOG_TIMEOUT = Duration.ofMillis(300);

    private TwoInstances<DistributedRedisLock> instances;
    private String key;

    @BeforeEach
    void startInstances() {
        instances = new TwoInstances<>(WATCHDOG_TIMEOUT);
        key = "distributed-" + UUID.randomUUID();
    }

    @AfterEach
    void stopInstances() {
        instances.close();
    }

    @Test
    void theRegistrysLocksAreSpringIntegrationsDistributedLocks() {
        LockRegistry<DistributedRedisLock> asSpringIntegrationSeesIt = instances.registry;
        DistributedLock lock = asSpringIntegrationSeesIt.obtain(key);
        assertThat(lock).isInstanceOf(DistributedRedisLock.class).isEqualTo(instances.registry.obtain(key));
    }

    /** One way of taking a lock for a time to live. */
    @FunctionalInterface
    private interface TakeForTimeToLive {
        void take(DistributedLock lock, Duration ttl) throws InterruptedException;
    }

    @Test
    void aLockTakenForATimeToLiveIsHeldForItPastTheWatchdogTimeoutAndUnlocksCleanly() throws Exception {
        heldForItsTimeToLivePastTheWatchdogTimeout(DistributedLock::lock);
    }

    @Test
    void aLockTriedForATimeToLiveIsHeldForItPastTheWatchdogTimeoutAndUnlocksCleanly() throws Exception {
        heldForItsTimeToLivePastTheWatchdogTimeout((lock, ttl) -> assertThat(lock.tryLock(Duration.ofMillis(100), ttl)).isTrue());
    }

    private void heldForItsTimeToLivePastTheWatchdogTimeout(TakeForTimeToLive takeForTimeToLive) throws Exception {
        for (int i = 0; i < 3; i++) {
            DistributedLock lock = instances.registry.obtain(key);
            takeForTimeToLive.take(lock, Duration.ofMillis(1000));
            try {
                Thread.sleep(WATCHDOG_TIMEOUT.toMillis() + 100);
                assertThat(instances.otherInstance.obtain(key).tryLock()).isFalse();
            } finally {
                lock.unlock();
            }
        }
        assertThat(instances.first.redis.hasKey(instances.first.redisKey(key))).isFalse();
    }

    @Test
    void theTimeToLiveIsTheLocksLeaseInRedisAndTheWatchdogLeavesItAlone() {
        DistributedRedisLock lock = instances.registry.obtain(key);
        lock.lock(Duration.ofSeconds(5));
        try {
            long expiry = instances.first.redis.getExpire(instances.first.redisKey(key), TimeUnit.MILLISECONDS);
            assertThat(expiry).as("the time to live, not the 300 ms watchdog timeout").isBetween(4000L, 5000L);
            assertThat(instances.first.locker.watchdogState().watchedCount()).isZero();
            assertThat(lock.getHoldCount()).isEqualTo(1);
        } finally {
            lock.unlock();
        }
    }

    @Test
    void aTimeToLiveEndsTheLockWhileItsHolderLivesAndItsLaterUnlockThrows() throws Exception {
        DistributedLock lock = instances.registry.obtain(key);
        lock.lock(Duration.ofMillis(300));
        DistributedLock theirs = instances.otherInstance.obtain(key);

        assertThat(theirs.tryLock(Duration.ofSeconds(3), Duration.ofSeconds(5))).as("free once the time to live ran out").isTrue();

        assertThatExceptionOfType(LockLostException.class).isThrownBy(lock::unlock).withMessageContaining(key);
        assertThat(instances.otherInstance.obtain(key).tryLock()).as("still the new holder's").isTrue();
        theirs.unlock();
        theirs.unlock();
        assertThat(instances.first.redis.hasKey(instances.first.redisKey(key))).isFalse();
    }

    @Test
    void aTryWithATimeToLiveGivesUpAfterItsWaitTimeAndHoldsNothing() throws Exception {
        DistributedLock held = instances.registry.obtain(key);
        held.lock();
        try {
            long start = System.nanoTime();
            assertThat(instances.otherInstance.obtain(key).tryLock(Duration.ofMillis(200), Duration.ofSeconds(5))).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
            assertThat(instances.otherInstance.obtain(key).tryLock(Duration.ofMillis(-1), Duration.ofSeconds(5))).as("a negative wait tries once").isFalse();
            assertThat(instances.second.locker.heldLockCount()).isZero();
        } finally {
            held.unlock();
        }
    }

    @Test
    void aTimeToLiveThatIsNoLeaseIsRefusedNamingTheKeyAndNothingIsTaken() {
        DistributedLock lock = instances.registry.obtain(key);
        assertThatIllegalArgumentException().isThrownBy(() -> lock.lock(Duration.ZERO)).withMessageContaining(key);
        assertThatIllegalArgumentException().isThrownBy(() -> lock.lock(null)).withMessageContaining(key);
        assertThatIllegalArgumentException().isThrownBy(() -> lock.lock(Duration.ofDays(366))).withMessageContaining(key);
        assertThatIllegalArgumentException().isThrownBy(() -> lock.tryLock(Duration.ZERO, Duration.ofSeconds(-1))).withMessageContaining(key);
        assertThatIllegalArgumentException().isThrownBy(() -> lock.tryLock(null, Duration.ofSeconds(1))).withMessageContaining(key);
        assertThat(instances.first.redis.hasKey(instances.first.redisKey(key))).isFalse();
        assertThat(instances.first.locker.heldLockCount()).isZero();
    }

    @Test
    void theAutoConfiguredRegistryHandsOutDistributedLocks() {
        new ApplicationContextRunner()
                .withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class, RedisLockLeaderAutoConfiguration.class,
                        RedisLockIntegrationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + TestRedis.shared().host(), "spring.data.redis.port=" + TestRedis.shared().port())
                .run(context -> {
                    ResolvableType distributed = ResolvableType.forClassWithGenerics(LockRegistry.class, DistributedRedisLock.class);
                    assertThat(context.getBeanProvider(distributed).getIfAvailable()).as("a LockRegistry<DistributedRedisLock>").isNotNull();
                    DistributedLock lock = (DistributedLock) context.getBean(LockRegistry.class).obtain(key);
                    assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(2))).isTrue();
                    lock.unlock();
                });
    }
}
