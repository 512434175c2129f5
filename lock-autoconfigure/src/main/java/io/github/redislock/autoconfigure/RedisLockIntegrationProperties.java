package io.github.redislock.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the Spring Integration {@code LockRegistry} on our locks ({@code redis-lock.integration.*}).
 */
@ConfigurationProperties(prefix = "redis-lock.integration", ignoreUnknownFields = false) // a misspelt name must not be ignored
public class RedisLockIntegrationProperties {

    /**
     * How long a lock of the LockRegistry outlives its holder's last renewal, when it should differ from
     * redis-lock.watchdog-timeout (unset: the same). Keys named under redis-lock.leader.roles use their
     * role's lease instead. At least 100ms.
     */
    private Duration lease;

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease == null ? null : RedisLockLeaderProperties.checked("redis-lock.integration.lease", lease);
    }
}
