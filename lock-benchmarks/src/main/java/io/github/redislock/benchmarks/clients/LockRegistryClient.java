package io.github.redislock.benchmarks.clients;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring Integration's {@link RedisLockRegistry}. Its plain {@code lock()} holds for {@code expireAfter};
 * renewal needs a renewal scheduler, which this client always sets (it only acts on renewed locks).
 */
final class LockRegistryClient implements LockClient {

    private final LettuceConnectionFactory connectionFactory;
    private final RedisLockRegistry plain;
    private final RedisLockRegistry renewing;
    private final ThreadPoolTaskScheduler renewalScheduler = new ThreadPoolTaskScheduler();

    LockRegistryClient(LockImplementation.ClientSettings settings, RedisLockType type) {
        connectionFactory = Connections.lettuceFactory(settings);
        plain = new RedisLockRegistry(connectionFactory, "registry-lock", settings.lease().toMillis());
        plain.setRedisLockType(type);
        renewing = new RedisLockRegistry(connectionFactory, "registry-renewed", settings.watchdogTimeout().toMillis());
        renewing.setRedisLockType(type);
        renewalScheduler.setThreadNamePrefix("registry-renewal-");
        renewalScheduler.initialize();
        renewing.setRenewalTaskScheduler(renewalScheduler);
    }

    static LockImplementation implementation(RedisLockType type) {
        return new LockImplementation(type == RedisLockType.SPIN_LOCK ? "registry-spin" : "registry-pubsub",
                "RedisLockRegistry " + RedissonClientAdapter.versionOf(RedisLockRegistry.class) + " " + type,
                settings -> new LockRegistryClient(settings, type));
    }

    @Override
    public void lock(String key) {
        plain.obtain(key).lock();
    }

    @Override
    public void unlock(String key) {
        plain.obtain(key).unlock();
    }

    @Override
    public void lockRenewed(String key) {
        renewing.obtain(key).lock();
    }

    @Override
    public void unlockRenewed(String key) {
        renewing.obtain(key).unlock();
    }

    @Override
    public void close() {
        plain.destroy();
        renewing.destroy();
        renewalScheduler.shutdown();
        connectionFactory.destroy();
    }
}
