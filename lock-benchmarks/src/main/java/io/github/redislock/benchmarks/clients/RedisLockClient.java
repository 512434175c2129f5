package io.github.redislock.benchmarks.clients;

import java.util.Optional;

import io.github.redislock.LockCommands;
import io.github.redislock.LockInternals;
import io.github.redislock.RedisLocker;
import io.github.redislock.waiting.ReleaseSubscriptions;
import io.github.redislock.watchdog.LockWatchdog;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** This project's {@link RedisLocker}, wired as the auto-configuration wires it. */
final class RedisLockClient implements LockClient {

    private static final String PREFIX = "lock:";

    private final LettuceConnectionFactory connectionFactory;
    private final LockWatchdog watchdog;
    private final ReleaseSubscriptions subscriptions;
    private final RedisLocker locker;

    RedisLockClient(LockImplementation.ClientSettings settings) {
        connectionFactory = Connections.lettuceFactory(settings);
        LockCommands commands = new LockCommands(connectionFactory);
        watchdog = new LockWatchdog(settings.watchdogTimeout(), commands);
        subscriptions = new ReleaseSubscriptions(connectionFactory, PREFIX + "__anchor");
        locker = new RedisLocker(commands, watchdog, subscriptions, PREFIX, event -> { });
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
        return Optional.of(LockInternals.waitQueueKey(PREFIX, key));
    }

    /** The locker, for the client that takes the same locks through the {@code ReactiveLocker}. */
    RedisLocker locker() {
        return locker;
    }

    @Override
    public void close() {
        locker.close();
        subscriptions.close();
        watchdog.close();
        connectionFactory.destroy();
    }
}
