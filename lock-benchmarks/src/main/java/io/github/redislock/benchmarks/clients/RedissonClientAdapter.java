package io.github.redislock.benchmarks.clients;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson's {@code RLock}: {@code lock()} is its watchdog mode, the one its users get by default. */
final class RedissonClientAdapter implements LockClient {

    private final RedissonClient redisson;

    RedissonClientAdapter(LockImplementation.ClientSettings settings) {
        Config config = new Config();
        config.setLockWatchdogTimeout(settings.watchdogTimeout().toMillis());
        if (settings.cluster()) {
            config.useClusterServers().addNodeAddress(settings.clusterNodes().stream().map(node -> "redis://" + node).toArray(String[]::new));
        } else {
            config.useSingleServer().setAddress("redis://" + settings.host() + ":" + settings.port());
        }
        redisson = Redisson.create(config);
    }

    static LockImplementation implementation() {
        return new LockImplementation("redisson", "Redisson " + versionOf(Redisson.class) + " RLock", RedissonClientAdapter::new);
    }

    @Override
    public void lock(String key) {
        redisson.getLock(key).lock();
    }

    @Override
    public void unlock(String key) {
        redisson.getLock(key).unlock();
    }

    @Override
    public void lockRenewed(String key) {
        redisson.getLock(key).lock();
    }

    @Override
    public void close() {
        redisson.shutdown();
    }

    static String versionOf(Class<?> type) {
        String version = type.getPackage().getImplementationVersion();
        return version == null ? "(version unknown)" : version;
    }
}
