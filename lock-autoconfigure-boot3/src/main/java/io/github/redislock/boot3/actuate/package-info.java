/**
 * The {@code redisLock} health indicator on Spring Boot 3.5, whose {@code HealthIndicator} is in
 * Actuator's own package. A package of this module's own: {@code io.github.redislock.actuate} belongs to
 * {@code lock-autoconfigure}, and a package split over two jars fails on the module path.
 */
package io.github.redislock.boot3.actuate;
