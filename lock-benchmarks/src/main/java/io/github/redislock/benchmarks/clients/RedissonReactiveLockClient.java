package io.github.redislock.benchmarks.clients;

import java.util.concurrent.ThreadLocalRandom;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.api.RedissonReactiveClient;
import org.redisson.config.Config;

/**
 * Redisson's {@code RLockReactive} in its watchdog mode. A reactive lock has no thread to own it, so
 * each worker thread passes an owner id of its own, as Redisson's documentation asks of reactive callers.
 */
final class RedissonReactiveLockClient implements LockClient {

    private final RedissonClient redisson;
    private final RedissonReactiveClient reactive;
    private final ThreadLocal<Long> ownerIds = ThreadLocal.withInitial(() -> ThreadLocalRandom.current().nextLong());

    RedissonReactiveLockClient(LockImplementation.ClientSettings settings) {
        settings.requireStandalone("Redisson's RLockReactive");
        Config config = new Config();
        config.setLockWatchdogTimeout(settings.watchdogTimeout().toMillis());
        config.useSingleServer().setAddress("redis://" + settings.host() + ":" + settings.port());
        redisson = Redisson.create(config);
        reactive = redisson.reactive();
    }

    static LockImplementation implementation() {
        return new LockImplementation("redisson-reactive", "Redisson " + RedissonClientAdapter.versionOf(Redisson.class) + " RLockReactive",
                RedissonReactiveLockClient::new);
    }

    @Override
    public void lock(String key) {
        reactive.getLock(key).lock(ownerIds.get()).block();
    }

    @Override
    public void unlock(String key) {
        reactive.getLock(key).unlock(ownerIds.get()).block();
    }

    @Override
    public void lockRenewed(String key) {
        lock(key);
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
