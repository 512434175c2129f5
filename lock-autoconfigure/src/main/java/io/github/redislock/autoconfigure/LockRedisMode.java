package io.github.redislock.autoconfigure;

/**
 * Where the locks live, as the {@code redis-lock.*} settings choose: the application's Redis, a Redis
 * of their own (by URL, Sentinel group or Cluster), or the Redlock masters.
 *
 * <p>Why one place: which Redis the auto-configuration connects to and which settings then take
 * effect ({@link RedisLockSettingsCheck}) must follow the same choice.
 */
enum LockRedisMode {

    /** No {@code redis-lock.redis.*} nor {@code redis-lock.redlock.nodes}: the application's {@code RedisConnectionFactory}. */
    APPLICATION("the application's Redis (spring.data.redis.*)"),
    /** {@code redis-lock.redis.url}. */
    URL("redis-lock.redis.url"),
    /** {@code redis-lock.redis.sentinel.master} and {@code .nodes} (either alone is an error of its own). */
    SENTINEL("redis-lock.redis.sentinel.*"),
    /** {@code redis-lock.redis.cluster.nodes}. */
    CLUSTER("redis-lock.redis.cluster.nodes"),
    /** {@code redis-lock.redlock.nodes}: independent masters instead of one Redis. */
    REDLOCK("redis-lock.redlock.nodes");

    private final String description;

    LockRedisMode(String description) {
        this.description = description;
    }

    /** How messages name the mode: by the settings that chose it. */
    String description() {
        return description;
    }

    /**
     * The mode the bound settings choose. Redlock wins over the one-Redis forms, which then have no
     * effect; among those, several set at once are refused by {@link RedisLockProperties.Redis#check()}.
     */
    static LockRedisMode of(RedisLockProperties properties) {
        RedisLockProperties.Redis redis = properties.getRedis();
        if (!properties.getRedlock().getNodes().isEmpty()) {
            return REDLOCK;
        }
        if (redis.getUrl() != null) {
            return URL;
        }
        if (redis.getSentinel().getMaster() != null || !redis.getSentinel().getNodes().isEmpty()) {
            return SENTINEL;
        }
        if (!redis.getCluster().getNodes().isEmpty()) {
            return CLUSTER;
        }
        return APPLICATION;
    }
}
