package io.github.redislock.core;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Two application instances on the shared test Redis, with a fresh key per test (and the Redis keys the
 * library names for it) and a pool for the test's blocking callers: the setting of every lock-kind test.
 */
abstract class TwoInstances {

    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(1);

    LockerFixture first;
    LockerFixture second;
    String key;
    LockKeys keys;
    /** Blocking callers; JUnit makes a new test instance, and with it a new pool, per test. */
    final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void startInstances() {
        first = connect();
        second = connect();
        key = getClass().getSimpleName() + "-" + UUID.randomUUID();
        keys = LockKeys.of(LockerFixture.PREFIX, key);
    }

    @AfterEach
    void stopInstances() {
        threads.shutdownNow();
        first.close();
        second.close();
    }

    /** One application instance on the shared Redis; on Lettuce unless a subclass says otherwise. */
    LockerFixture connect() {
        return LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), WATCHDOG_TIMEOUT);
    }
}
