package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisURI;

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

    private final Redlock redlock = new Redlock();

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

    public Redlock getRedlock() {
        return redlock;
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

    /** The Redlock algorithm over independent Redis masters, instead of the application's one Redis. */
    public static class Redlock {

        /**
         * URLs of 3 or more independent Redis masters (an odd count is best), such as
         * "redis://:secret@10.0.0.1:6379" or "rediss://user:secret@redis-2:6380/0". When set, the Locker
         * takes every lock on a majority of them.
         */
        private List<String> nodes = new ArrayList<>();

        /**
         * How long one master may take to answer before it counts as failed for that attempt. Keep
         * it small against the lease: a lock is only valid for the lease minus the time the attempt took.
         */
        private Duration nodeTimeout = Duration.ofMillis(100);

        /**
         * Average pause between two attempts of a caller waiting for a held lock; each pause is
         * drawn at random between half and one and a half times it, so competing callers do not retry
         * in lock-step.
         */
        private Duration retryDelay = Duration.ofMillis(200);

        public List<String> getNodes() {
            return nodes;
        }

        public void setNodes(List<String> nodes) {
            List<String> urls = nodes == null ? List.of() : nodes;
            if (!urls.isEmpty() && urls.size() < 3) {
                throw new IllegalArgumentException("redis-lock.redlock.nodes needs at least 3 independent Redis masters, but lists "
                        + urls.size() + "; leave it empty to use the application's Redis");
            }
            urls.forEach(Redlock::checkUrl);
            this.nodes = new ArrayList<>(urls);
        }

        public Duration getNodeTimeout() {
            return nodeTimeout;
        }

        public void setNodeTimeout(Duration nodeTimeout) {
            if (nodeTimeout == null || nodeTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("redis-lock.redlock.node-timeout must be at least 1ms, but was " + nodeTimeout);
            }
            this.nodeTimeout = nodeTimeout;
        }

        public Duration getRetryDelay() {
            return retryDelay;
        }

        public void setRetryDelay(Duration retryDelay) {
            if (retryDelay == null || retryDelay.toMillis() < 1) {
                throw new IllegalArgumentException("redis-lock.redlock.retry-delay must be at least 1ms, but was " + retryDelay);
            }
            this.retryDelay = retryDelay;
        }

        private static void checkUrl(String url) {
            String problem = null;
            try {
                RedisURI uri = RedisURI.create(url);
                if (!url.startsWith("redis://") && !url.startsWith("rediss://")) {
                    problem = "it must start with redis:// or rediss://";
                } else if (uri.getHost() == null || uri.getHost().isBlank()) {
                    problem = "it names no host";
                }
            } catch (RuntimeException e) {
                problem = e.getMessage();
            }
            if (problem != null) {
                throw new IllegalArgumentException("redis-lock.redlock.nodes has an invalid URL '" + url + "': " + problem);
            }
        }
    }
}
