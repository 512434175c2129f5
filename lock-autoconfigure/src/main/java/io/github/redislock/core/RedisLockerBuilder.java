package io.github.redislock.core;

import io.github.redislock.core.pubsub.ChannelSubscriber;
import io.github.redislock.core.pubsub.ReleaseSubscriptions;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.ShardedChannels;
import io.github.redislock.LockObserver;
import io.github.redislock.observation.FailSafeLockObserver;

import java.time.Duration;
import java.util.Objects;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** Builds a {@link RedisLocker} with its parts, which it owns and closes; each setting defaults as its {@code redis-lock.*} property. */
public final class RedisLockerBuilder {

    private final RedisConnectionFactory connectionFactory;
    private String keyPrefix = "lock:";
    private Duration watchdogTimeout = Duration.ofSeconds(30);
    private Duration replicaSync;
    private boolean callerConnections = true;
    private ApplicationEventPublisher events = event -> { };
    private LockObserver observer = LockObserver.NONE;

    RedisLockerBuilder(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
    }

    public RedisLockerBuilder keyPrefix(String keyPrefix) {
        this.keyPrefix = RedisLocker.checkedKeyPrefix(keyPrefix);
        return this;
    }

    public RedisLockerBuilder watchdogTimeout(Duration watchdogTimeout) {
        this.watchdogTimeout = LockWatchdog.checkedTimeout(watchdogTimeout);
        return this;
    }

    public RedisLockerBuilder replicaSync(Duration replicaSync) {
        if (replicaSync != null && replicaSync.toMillis() < 1) { // WAIT blocks for ever on 0, and refuses a negative time once the lock is taken
            throw new IllegalArgumentException("replicaSync must be at least 1ms (or null to not wait for replicas), but was " + replicaSync);
        }
        this.replicaSync = replicaSync;
        return this;
    }

    /** Whether blocking calls may use connections of their own on a standalone Redis (see {@code redis-lock.caller-connections}). */
    public RedisLockerBuilder callerConnections(boolean callerConnections) {
        this.callerConnections = callerConnections;
        return this;
    }

    /** Receives a {@link io.github.redislock.LockLostEvent} for every lock found gone before its holder released it. */
    public RedisLockerBuilder events(ApplicationEventPublisher events) {
        this.events = Objects.requireNonNull(events, "events");
        return this;
    }

    /** Hears acquisitions, releases, losses and renewals, for metrics and traces; its failures never reach a lock. */
    public RedisLockerBuilder observer(LockObserver observer) {
        this.observer = FailSafeLockObserver.of(Objects.requireNonNull(observer, "observer")); // the watchdog's and the locker's: one first WARN
        return this;
    }

    /** A Locker that starts its watchdog now and opens its pub/sub connection at the first wait. */
    public RedisLocker build() {
        ShardedChannels shardedChannels = new ShardedChannels(connectionFactory).learned();
        LockCommands commands = new LockCommands(connectionFactory, watchdogTimeout, replicaSync, shardedChannels, callerConnections);
        ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(ChannelSubscriber.of(connectionFactory, shardedChannels),
                keyPrefix + "__anchor");
        return new RedisLocker(commands, new LockWatchdog(watchdogTimeout, commands, observer), subscriptions, keyPrefix, events, observer);
    }
}
