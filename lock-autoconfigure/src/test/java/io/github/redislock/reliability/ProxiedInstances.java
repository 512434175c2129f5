package io.github.redislock.reliability;

import java.time.Duration;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;

/**
 * Two instances on one Redis: {@code slowed} reaches it through a {@link FaultProxy} (its replies can be
 * made late or lost), {@code other} directly. Closing heals the proxy first, so every close goes through.
 */
final class ProxiedInstances implements AutoCloseable {

    final FaultProxy proxy;
    final LockerFixture slowed;
    final LockerFixture other;

    ProxiedInstances(RedisServerProcess redis, Duration watchdogTimeout, Duration commandTimeout) {
        proxy = new FaultProxy(redis.port());
        slowed = LockerFixture.connect("127.0.0.1", proxy.port(), watchdogTimeout, commandTimeout);
        other = LockerFixture.connect(redis.host(), redis.port(), watchdogTimeout);
    }

    @Override
    public void close() {
        proxy.heal();
        slowed.close();
        other.close();
        proxy.close();
    }
}
