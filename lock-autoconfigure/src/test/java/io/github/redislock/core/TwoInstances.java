package io.github.redislock.core;

import java.time.Duration;
import java.util.UUID;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Two application instances on the shared test Redis, with a fresh key per test: the setting of every lock-kind test. */
abstract class TwoInstances {

    static final Duration WATCHDOG_TIMEOUT = Duration.ofSeconds(1);

    LockerFixture first;
    LockerFixture second;
    String key;

    @BeforeEach
    void startInstances() {
        first = connect();
        second = connect();
        key = getClass().getSimpleName() + "-" + UUID.randomUUID();
    }

    @AfterEach
    void stopInstances() {
        first.close();
        second.close();
    }

    static LockerFixture connect() {
        return LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), WATCHDOG_TIMEOUT);
    }
}
