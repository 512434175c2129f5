package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

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
     * Whether to auto-configure the Locker, and with it the leader election, the LockRegistry, the locks
     * endpoint and health; @DistributedLock runs on any Locker bean, the application's own too. true or
     * false: any other value stops startup.
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
     * How long @DistributedLock waits for a held lock when the annotation names no wait time. 0 or more:
     * 0 tries once.
     */
    private Duration defaultWaitTime = Duration.ofSeconds(3);

    private final Redlock redlock = new Redlock();

    private final Redis redis = new Redis();

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
     * Whether a blocking lock call on a standalone Redis reached over plain TCP may send its script on a connection
     * the Locker's calling threads share and read the reply on the calling thread, which is faster than the shared
     * connection's event loop; false keeps every call on the connection factory's connections.
     */
    private boolean callerConnections = true;

    /**
     * When set, every first acquisition of a lock waits up to this long for at least one replica to
     * acknowledge it (Redis WAIT), and fails with LockRedisException, releasing the lock again, when
     * none did: a lock then survives a Sentinel failover. Unset: no waiting; replication is
     * asynchronous and a lock taken just before the master dies may be lost. For a master with
     * replicas (Sentinel); not for Redis Cluster. Lettuce only, at least 1ms, and shorter than the command
     * timeout.
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

    public Redis getRedis() {
        return redis;
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

    public boolean isCallerConnections() {
        return callerConnections;
    }

    public void setCallerConnections(boolean callerConnections) {
        this.callerConnections = callerConnections;
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

    /** A Redis URL as logs and error messages may show it: without the user and password. */
    static String withoutPassword(String url) {
        return url.replaceFirst("//[^@/]*@", "//");
    }

    /**
     * {@code url} parsed, or an exception naming {@code property} and what is wrong with the URL: Lettuce
     * takes a URL without a host, or with a port that is not a number, for a host named ":6379" or
     * "redis:abc", and the mistake would show only at the first lock call, as a failed connection.
     */
    private static RedisURI checkedUrl(String property, String url) {
        String problem;
        try {
            RedisURI uri = RedisURI.create(url);
            if (!url.startsWith("redis://") && !url.startsWith("rediss://")) {
                problem = "it must start with redis:// or rediss://";
            } else if (uri.getHost() == null || uri.getHost().isBlank() || uri.getHost().startsWith(":")) {
                problem = "it names no host";
            } else if (uri.getHost().contains(":") && !uri.getHost().startsWith("[")) {
                // Lettuce reads no port from a host name it cannot parse (one with '_', or a port that is not a number)
                problem = "its host and port do not parse as host:port (a host name holds letters, digits, '-' and '.')";
            } else {
                return uri;
            }
        } catch (RuntimeException e) {
            problem = e.getMessage();
        }
        throw new IllegalArgumentException(property + " has an invalid URL '" + withoutPassword(url) + "': " + problem);
    }

    /** {@code nodes} as set, each checked to be the "host:port" that {@code property} documents. */
    private static List<String> checkedNodes(String property, List<String> nodes) {
        List<String> checked = nodes == null ? new ArrayList<>() : new ArrayList<>(nodes);
        for (String node : checked) {
            int colon = node.lastIndexOf(':');
            String port = node.substring(colon + 1);
            if (colon < 1 || node.substring(0, colon).isBlank() || !port.matches("\\d{1,5}") || Integer.parseInt(port) > 65535) {
                throw new IllegalArgumentException(property + " has an invalid node '" + node + "': write it as host:port");
            }
        }
        return checked;
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
         * At least 1ms.
         */
        private Duration nodeTimeout = Duration.ofMillis(100);

        /**
         * Average pause between two attempts of a caller waiting for a held lock; each pause is
         * drawn at random between half and one and a half times it, so competing callers do not retry
         * in lock-step. At least 1ms.
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
            Set<String> servers = new HashSet<>();
            for (String url : urls) {
                RedisURI uri = checkedUrl("redis-lock.redlock.nodes", url);
                String server = uri.getHost().toLowerCase(Locale.ROOT) + ":" + uri.getPort();
                if (!servers.add(server)) {
                    throw new IllegalArgumentException("redis-lock.redlock.nodes lists the server " + server + " more than once: a majority needs"
                            + " independent masters, and one server listed twice would count as two");
                }
            }
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
    }

    /**
     * A Redis of the locks' own, apart from the application's {@code spring.data.redis.*} one: set one
     * of url, sentinel or cluster. Unset, the locks use the application's RedisConnectionFactory.
     */
    public static class Redis {

        /**
         * URL of one Redis server, such as "redis://user:secret@locks-redis:6379/0" ("rediss://" for TLS).
         */
        private String url;

        /** Login user of the Sentinel or Cluster servers (a URL carries its own). */
        private String username;

        /** Login password of the Sentinel or Cluster servers (a URL carries its own). */
        private String password;

        /** Whether to reach the Sentinel or Cluster servers over TLS (a URL says it by "rediss://"). */
        private boolean ssl;

        /** How long connecting and each command may take before the lock call fails. At least 1ms. */
        private Duration timeout = Duration.ofSeconds(5);

        private final Sentinel sentinel = new Sentinel();

        private final Cluster cluster = new Cluster();

        /**
         * Fails naming the properties when more than one way to the dedicated Redis is set, or a
         * Sentinel group lacks its master or nodes.
         */
        public void check() {
            int ways = (url != null ? 1 : 0) + (sentinel.getMaster() != null || !sentinel.getNodes().isEmpty() ? 1 : 0)
                    + (cluster.getNodes().isEmpty() ? 0 : 1);
            if (ways > 1) {
                throw new IllegalStateException("Set only one of redis-lock.redis.url, redis-lock.redis.sentinel.* and "
                        + "redis-lock.redis.cluster.nodes: they are different ways to the one Redis the locks live on");
            }
            if ((sentinel.getMaster() == null) != sentinel.getNodes().isEmpty()) {
                throw new IllegalStateException("redis-lock.redis.sentinel needs both master and nodes, but has master="
                        + sentinel.getMaster() + " and nodes=" + sentinel.getNodes());
            }
        }

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            if (url != null) {
                checkedUrl("redis-lock.redis.url", url);
            }
            this.url = url;
        }

        public String getUsername() {
            return username;
        }

        public void setUsername(String username) {
            this.username = username;
        }

        public String getPassword() {
            return password;
        }

        public void setPassword(String password) {
            this.password = password;
        }

        public boolean isSsl() {
            return ssl;
        }

        public void setSsl(boolean ssl) {
            this.ssl = ssl;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            if (timeout == null || timeout.toMillis() < 1) {
                throw new IllegalArgumentException("redis-lock.redis.timeout must be at least 1ms, but was " + timeout);
            }
            this.timeout = timeout;
        }

        public Sentinel getSentinel() {
            return sentinel;
        }

        public Cluster getCluster() {
            return cluster;
        }

        /** A Sentinel group that names the locks' Redis master. */
        public static class Sentinel {

            /** Name of the master the Sentinels watch. */
            private String master;

            /** The Sentinels, as "host:port". */
            private List<String> nodes = new ArrayList<>();

            public String getMaster() {
                return master;
            }

            public void setMaster(String master) {
                if (master != null && master.isBlank()) {
                    throw new IllegalArgumentException("redis-lock.redis.sentinel.master must name the master the Sentinels watch, but is blank");
                }
                this.master = master;
            }

            public List<String> getNodes() {
                return nodes;
            }

            public void setNodes(List<String> nodes) {
                this.nodes = checkedNodes("redis-lock.redis.sentinel.nodes", nodes);
            }
        }

        /** A Redis Cluster for the locks. */
        public static class Cluster {

            /** Some of the Cluster's nodes, as "host:port"; the rest are discovered. */
            private List<String> nodes = new ArrayList<>();

            public List<String> getNodes() {
                return nodes;
            }

            public void setNodes(List<String> nodes) {
                this.nodes = checkedNodes("redis-lock.redis.cluster.nodes", nodes);
            }
        }
    }
}
