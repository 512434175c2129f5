/**
 * Spring Boot auto-configuration of redis-lock, one {@code RedisLock…AutoConfiguration} per concern
 * (the Locker, Redlock, the annotation, observation, the Actuator endpoint, the health indicator),
 * with the {@code redis-lock.*} properties they bind. The runtime classes they create live in the
 * packages of their role; nothing here is needed by code that builds its Locker itself.
 */
package io.github.redislock.autoconfigure;

