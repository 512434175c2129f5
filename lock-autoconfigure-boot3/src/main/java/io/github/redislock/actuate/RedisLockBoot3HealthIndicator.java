package io.github.redislock.actuate;

import io.github.redislock.watchdog.LockWatchdog;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** {@code redisLock} on Spring Boot 3.5: the {@link LockHealthReport} as Boot 3's {@link Health}. */
public class RedisLockBoot3HealthIndicator implements HealthIndicator {

    private final LockWatchdog watchdog;

    public RedisLockBoot3HealthIndicator(LockWatchdog watchdog) {
        this.watchdog = watchdog;
    }

    @Override
    public Health health() {
        LockHealthReport report = LockHealthReport.of(watchdog);
        return (report.down() ? Health.down() : Health.up()).withDetails(report.details()).build();
    }
}
