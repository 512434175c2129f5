package io.github.redislock.reliability;

import java.time.Duration;

import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Two instances on one Redis for each test, as a JUnit extension ({@code @RegisterExtension}):
 * {@code slowed} reaches it through a {@link FaultProxy} (its replies can be made late or lost),
 * {@code other} directly. After each test (and after its own {@code @AfterEach} methods) the proxy is
 * healed first, so every close goes through.
 */
final class ProxiedInstances implements BeforeEachCallback, AfterEachCallback {

    private final RedisServerProcess redis;
    private final Duration watchdogTimeout;
    private final Duration commandTimeout;
    FaultProxy proxy;
    LockerFixture slowed;
    LockerFixture other;

    ProxiedInstances(RedisServerProcess redis, Duration watchdogTimeout, Duration commandTimeout) {
        this.redis = redis;
        this.watchdogTimeout = watchdogTimeout;
        this.commandTimeout = commandTimeout;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        proxy = new FaultProxy(redis.port());
        slowed = LockerFixture.connect("127.0.0.1", proxy.port(), watchdogTimeout, commandTimeout);
        other = LockerFixture.connect(redis.host(), redis.port(), watchdogTimeout);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        proxy.heal();
        try {
            slowed.close();
            other.close();
        } finally {
            proxy.close();
        }
    }
}
