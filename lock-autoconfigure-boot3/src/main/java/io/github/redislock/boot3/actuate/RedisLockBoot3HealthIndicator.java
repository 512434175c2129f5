package io.github.redislock.boot3.actuate;

import io.github.redislock.actuate.LockHealthReport;
import io.github.redislock.core.WatchdogState;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/** {@code redisLock} on Spring Boot 3.5: the {@link LockHealthReport} as Boot 3's {@link Health}. */
public class RedisLockBoot3HealthIndicator implements HealthIndicator {

    private final WatchdogState watchdog;

    public RedisLockBoot3HealthIndicator(WatchdogState watchdog) {
        this.watchdog = watchdog;
    }

    @Override
    public Health health() {
        LockHealthReport report = LockHealthReport.of(watchdog);
        return (report.down() ? Health.down() : Health.up()).withDetails(report.details()).build();
    }
}
