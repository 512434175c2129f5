package io.github.redislock.actuate;

import java.util.Map;

import org.springframework.context.ApplicationContext;

/**
 * What the {@code redisLockHealthIndicator} bean reports, read through the method names that Boot 4's
 * and Boot 3.5's {@code Health} types share, so that one test checks the real indicator on both lines.
 */
record HealthReading(String status, Map<String, Object> details) {

    @SuppressWarnings("unchecked")
    static HealthReading of(ApplicationContext context) {
        Object indicator = context.getBean("redisLockHealthIndicator");
        try {
            Object health = indicator.getClass().getMethod("health").invoke(indicator);
            Object status = health.getClass().getMethod("getStatus").invoke(health);
            return new HealthReading((String) status.getClass().getMethod("getCode").invoke(status),
                    (Map<String, Object>) health.getClass().getMethod("getDetails").invoke(health));
        } catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("Cannot read the health of " + indicator.getClass().getName(), ex);
        }
    }
}
