/**
 * Actuator support: the {@code locks} endpoint (held locks, watchdog state, a lock's Redis state and,
 * when allowed, force-release) and the {@code redisLock} health indicator of Spring Boot 4.
 */
package io.github.redislock.actuate;
