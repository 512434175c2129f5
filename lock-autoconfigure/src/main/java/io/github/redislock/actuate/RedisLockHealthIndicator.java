package io.github.redislock.actuate;

import io.github.redislock.core.WatchdogState;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** {@code redisLock} on Spring Boot 4: the {@link LockHealthReport} as Boot 4's {@link Health}. */
public class RedisLockHealthIndicator implements HealthIndicator {

    private final WatchdogState watchdog;

    public RedisLockHealthIndicator(WatchdogState watchdog) {
        this.watchdog = watchdog;
    }

    @Override
    public Health health() {
        LockHealthReport report = LockHealthReport.of(watchdog);
        return (report.down() ? Health.down() : Health.up()).withDetails(report.details()).build();
    }
}
