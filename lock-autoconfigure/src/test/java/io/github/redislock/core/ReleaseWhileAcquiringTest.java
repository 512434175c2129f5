package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.Locker;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A shared owner (an owner token, a lock handle) releases while another of its acquisitions waits
 * behind a foreign holder. It holds nothing yet: the release must say so at once. Lined up behind that
 * acquisition, it would wait as long as the foreign holder keeps the lock.
 */
class ReleaseWhileAcquiringTest {

    private final String key = "release-while-acquiring-" + UUID.randomUUID();
    private LockerFixture instance;
    private LockerFixture other;

    @BeforeEach
    void connect() {
        instance = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(3));
        other = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(3));
    }

    @AfterEach
    void close() {
        other.locker.unlock(key); // lets the waiting acquisition through, and it is released with its locker
        instance.close();
        other.close();
    }

    @Test
    void anOwnerTokenThatHoldsNothingIsToldSoAtOnceWhileAnotherOfItsAcquisitionsWaits() {
        String token = "job-" + UUID.randomUUID();
        other.locker.lock(key);
        CompletableFuture.runAsync(() -> {
            try {
                instance.locker.tryLockAs(token, key, Locker.WAIT_FOREVER, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> Internals.queuedWaits(instance.locker) == 1);

        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> assertThatThrownBy(() -> instance.locker.unlockAs(token, key))
                .isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(key));
    }

    @Test
    void aHandleThatHoldsNothingIsToldSoAtOnceWhileItsAcquisitionWaits() throws Exception {
        LockHandle handle = instance.async.acquire(key, Duration.ZERO, null).get(5, TimeUnit.SECONDS);
        instance.async.release(handle).get(5, TimeUnit.SECONDS);
        other.locker.lock(key);
        instance.async.acquire(handle, null, null);
        await().atMost(Duration.ofSeconds(5)).until(() -> Internals.queuedWaits(instance.locker) == 1);

        assertThat(instance.async.release(handle)).failsWithin(Duration.ofSeconds(2))
                .withThrowableOfType(ExecutionException.class).havingCause().isInstanceOf(IllegalMonitorStateException.class);
    }
}
