package io.github.redislock.benchmarks.clients;

import java.util.Optional;

import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.script.LockKeys;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** This project's {@link RedisLocker}, wired as the auto-configuration wires it. */
final class RedisLockClient implements LockClient {

    private static final String PREFIX = "lock:";

    private final LettuceConnectionFactory connectionFactory;
    private final RedisLocker locker;

    RedisLockClient(LockImplementation.ClientSettings settings) {
        connectionFactory = Connections.lettuceFactory(settings);
        locker = RedisLocker.builder(connectionFactory).keyPrefix(PREFIX).watchdogTimeout(settings.watchdogTimeout()).build();
    }

    static LockImplementation implementation() {
        return new LockImplementation("redis-lock", "redis-lock (this project)", RedisLockClient::new);
    }

    @Override
    public void lock(String key) {
        locker.lock(key);
    }

    @Override
    public void unlock(String key) {
        locker.unlock(key);
    }

    @Override
    public void lockRenewed(String key) {
        locker.lock(key);
    }

    @Override
    public Optional<String> waitQueueKey(String key) {
        return Optional.of(LockKeys.of(PREFIX, key).waitQueue());
    }

    /** The locker, for the client that takes the same locks through the {@code ReactiveLocker}. */
    RedisLocker locker() {
        return locker;
    }

    @Override
    public void close() {
        locker.close();
        connectionFactory.destroy();
    }
}
