package io.github.redislock.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.redislock.core.WatchdogState;

/**
 * The {@code redisLock} health rule, apart from Spring Boot's health types so that one rule serves
 * both Boot lines: Boot 4 and Boot 3.5 keep {@code HealthIndicator} in different packages, and each
 * line's indicator only turns this report into its own {@code Health}.
 *
 * <p>DOWN once the watchdog has failed to renew for longer than its timeout (measured from when its last
 * renewal was sent, see {@link #unrenewedFor}). By then the locks it
 * keeps alive have expired in Redis (or are about to), so other instances may take them while this one
 * still runs its critical sections: a failure of this instance's dependency, hence DOWN rather than
 * OUT_OF_SERVICE, which Spring Boot reserves for deliberately withdrawn instances. Failures shorter
 * than the timeout are only reported in the details: the locks survive them.
 *
 * <p>Public for the Boot 3.5 indicator, which lives in {@code lock-autoconfigure-boot3}'s own package.
 *
 * @param down whether the instance is DOWN by the rule above
 * @param details the watchdog's state, as the indicator reports it
 */
public record LockHealthReport(boolean down, Map<String, Object> details) {

    /** The report on {@code watchdog}'s state now. */
    public static LockHealthReport of(WatchdogState watchdog) {
        Instant failingSince = watchdog.failingSince();
        int watched = watchdog.watchedCount();
        boolean atRisk = failingSince != null && watched > 0 && unrenewedFor(watchdog).compareTo(watchdog.timeout()) > 0;
        Map<String, Object> details = new LinkedHashMap<>();
        if (atRisk) {
            details.put("error", "The watchdog has not renewed " + watched + " lock(s) since " + failingSince
                    + ", longer than its timeout of " + watchdog.timeout().toMillis() + " ms: they may have expired and been taken by others");
            details.put("locksAtRisk", watched);
        }
        details.put("watchedLocks", watched);
        details.put("watchdogTimeoutMillis", watchdog.timeout().toMillis());
        details.put("consecutiveFailures", watchdog.consecutiveFailures());
        if (watchdog.lastRenewal() != null) {
            details.put("lastRenewal", watchdog.lastRenewal());
        }
        if (failingSince != null) {
            details.put("failingSince", failingSince);
        }
        return new LockHealthReport(atRisk, details);
    }

    /**
     * How long the watched locks have gone without renewal: on the monotonic clock since the last renewal was
     * sent (their leases run from then), or for an instance that never renewed since its first failed tick,
     * so that a step of the wall clock neither raises nor hides an outage.
     */
    private static Duration unrenewedFor(WatchdogState watchdog) {
        return Duration.ofNanos(System.nanoTime() - (watchdog.lastRenewal() == null ? watchdog.failingSinceNanos() : watchdog.lastRenewalSentNanos()));
    }
}
