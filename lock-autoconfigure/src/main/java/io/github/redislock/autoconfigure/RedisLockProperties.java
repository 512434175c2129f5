package io.github.redislock.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

/**
 * Settings of redis-lock. Invalid values fail startup with the property's name: each setter checks
 * its value, and Spring Boot reports the failed binding.
 */
@ConfigurationProperties(prefix = "redis-lock")
public class RedisLockProperties {

    /**
     * Whether to auto-configure the Locker, the watchdog and the annotation support.
     */
    private boolean enabled = true;

    /**
     * Prefix of every lock's Redis key: a lock with key "order-42" lives at "<prefix>order-42". Give
     * each application its own prefix when several share one Redis.
     */
    private String keyPrefix = "lock:";

    /**
     * How long a lock taken without a lease lives in Redis unless the watchdog renews it. The watchdog
     * renews every third of it, so a lock survives two missed renewals, and a crashed instance's
     * locks free themselves within this time. At least 100ms.
     */
    private Duration watchdogTimeout = Duration.ofSeconds(30);

    /**
     * How long @DistributedLock waits for a held lock when the annotation names no wait time. 0 tries
     * once.
     */
    private Duration defaultWaitTime = Duration.ofSeconds(3);

    /**
     * Order of the @DistributedLock advice among the other advice on a method. The default puts it
     * outside @Transactional and @Cacheable at their default order, so a transaction commits before
     * the lock is released.
     */
    private int aspectOrder = Ordered.LOWEST_PRECEDENCE - 10;

    /**
     * Whether a @DistributedLock method called inside a transaction its caller started keeps the lock
     * until that transaction commits or rolls back, so no other instance reads the data before it is
     * committed.
     */
    private boolean releaseAfterTransaction = true;

    /**
     * When set, every first acquisition of a lock waits up to this long for at least one replica to
     * acknowledge it (Redis WAIT), and fails with LockRedisException, releasing the lock again, when
     * none did: a lock then survives a Sentinel failover. Unset: no waiting; replication is
     * asynchronous and a lock taken just before the master dies may be lost. For a master with
     * replicas (Sentinel); not for Redis Cluster.
     */
    private Duration replicaSync;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        if (keyPrefix == null || keyPrefix.isBlank()) {
            throw new IllegalArgumentException("redis-lock.key-prefix must not be blank; it keeps lock keys apart from the application's other keys");
        }
        this.keyPrefix = keyPrefix;
    }

    public Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    public void setWatchdogTimeout(Duration watchdogTimeout) {
        if (watchdogTimeout == null || watchdogTimeout.toMillis() < 100) {
            throw new IllegalArgumentException("redis-lock.watchdog-timeout must be at least 100ms, but was " + watchdogTimeout);
        }
        this.watchdogTimeout = watchdogTimeout;
    }

    public int getAspectOrder() {
        return aspectOrder;
    }

    public void setAspectOrder(int aspectOrder) {
        this.aspectOrder = aspectOrder;
    }

    public boolean isReleaseAfterTransaction() {
        return releaseAfterTransaction;
    }

    public void setReleaseAfterTransaction(boolean releaseAfterTransaction) {
        this.releaseAfterTransaction = releaseAfterTransaction;
    }

    public Duration getReplicaSync() {
        return replicaSync;
    }

    public void setReplicaSync(Duration replicaSync) {
        if (replicaSync != null && replicaSync.toMillis() < 1) {
            throw new IllegalArgumentException("redis-lock.replica-sync must be at least 1ms (or unset to not wait for replicas), but was " + replicaSync);
        }
        this.replicaSync = replicaSync;
    }

    public Duration getDefaultWaitTime() {
        return defaultWaitTime;
    }

    public void setDefaultWaitTime(Duration defaultWaitTime) {
        if (defaultWaitTime == null || defaultWaitTime.isNegative()) {
            throw new IllegalArgumentException("redis-lock.default-wait-time must be 0 or more, but was " + defaultWaitTime);
        }
        this.defaultWaitTime = defaultWaitTime;
    }
}
