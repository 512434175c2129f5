package io.github.redislock.integration;

import java.time.Duration;

import io.github.redislock.RedisLock;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.TestRedis;

/** Two application instances on the shared test Redis, each with its registry: what the registry tests run on. */
final class TwoInstances<L extends RedisLock> implements AutoCloseable {

    final LockerFixture first;
    final LockerFixture second;
    final LockerLockRegistry<L> registry;
    final LockerLockRegistry<L> otherInstance;

    TwoInstances(Duration watchdogTimeout) {
        first = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), watchdogTimeout);
        second = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), watchdogTimeout);
        registry = new LockerLockRegistry<>(first.locker);
        otherInstance = new LockerLockRegistry<>(second.locker);
    }

    @Override
    public void close() {
        try {
            first.close();
        } finally {
            second.close();
        }
    }
}
