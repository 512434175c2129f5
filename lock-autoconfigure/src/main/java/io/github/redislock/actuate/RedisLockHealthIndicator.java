package io.github.redislock.actuate;

import java.time.Duration;
import java.time.Instant;

import io.github.redislock.watchdog.LockWatchdog;

import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * {@code redisLock}: DOWN once the watchdog has failed to renew for longer than its timeout. By then
 * the locks it keeps alive have expired in Redis (or are about to), so other instances may take them
 * while this one still runs its critical sections: a failure of this instance's dependency, hence
 * DOWN rather than OUT_OF_SERVICE, which Spring Boot reserves for deliberately withdrawn instances.
 * Failures shorter than the timeout are only reported in the details: the locks survive them.
 */
public class RedisLockHealthIndicator implements HealthIndicator {

    private final LockWatchdog watchdog;

    public RedisLockHealthIndicator(LockWatchdog watchdog) {
        this.watchdog = watchdog;
    }

    @Override
    public Health health() {
        Instant failingSince = watchdog.failingSince();
        int watched = watchdog.watchedCount();
        boolean atRisk = failingSince != null && watched > 0
                && Duration.between(failingSince, Instant.now()).compareTo(watchdog.timeout()) > 0;
        Health.Builder health = atRisk ? Health.down() : Health.up();
        if (atRisk) {
            health.withDetail("error", "The watchdog has not renewed " + watched + " lock(s) since " + failingSince
                    + ", longer than its timeout of " + watchdog.timeout().toMillis() + " ms: they may have expired and been taken by others");
            health.withDetail("locksAtRisk", watched);
        }
        health.withDetail("watchedLocks", watched)
                .withDetail("watchdogTimeoutMillis", watchdog.timeout().toMillis())
                .withDetail("consecutiveFailures", watchdog.consecutiveFailures());
        if (watchdog.lastRenewal() != null) {
            health.withDetail("lastRenewal", watchdog.lastRenewal());
        }
        if (failingSince != null) {
            health.withDetail("failingSince", failingSince);
        }
        return health.build();
    }
}
