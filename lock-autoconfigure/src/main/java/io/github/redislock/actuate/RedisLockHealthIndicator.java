package io.github.redislock.actuate;

import io.github.redislock.watchdog.LockWatchdog;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/** {@code redisLock} on Spring Boot 4: the {@link LockHealthReport} as Boot 4's {@link Health}. */
public class RedisLockHealthIndicator implements HealthIndicator {

    private final LockWatchdog watchdog;

    public RedisLockHealthIndicator(LockWatchdog watchdog) {
        this.watchdog = watchdog;
    }

    @Override
    public Health health() {
        LockHealthReport report = LockHealthReport.of(watchdog);
        return (report.down() ? Health.down() : Health.up()).withDetails(report.details()).build();
    }
}
