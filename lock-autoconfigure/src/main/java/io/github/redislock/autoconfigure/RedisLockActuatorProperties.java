package io.github.redislock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the {@code locks} Actuator endpoint. */
@ConfigurationProperties(prefix = "redis-lock.actuator", ignoreUnknownFields = false) // a misspelt name must not be ignored
public class RedisLockActuatorProperties {

    /**
     * Whether DELETE /actuator/locks/{key} may force-release a lock whoever holds it. Off by default:
     * the former holder keeps running unprotected until its unlock fails, so enable it only where
     * operators need to free locks of hung instances and the endpoint is secured.
     */
    private boolean forceReleaseEnabled;

    public boolean isForceReleaseEnabled() {
        return forceReleaseEnabled;
    }

    public void setForceReleaseEnabled(boolean forceReleaseEnabled) {
        this.forceReleaseEnabled = forceReleaseEnabled;
    }
}
