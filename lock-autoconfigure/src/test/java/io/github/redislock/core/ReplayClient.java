package io.github.redislock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import io.github.redislock.testsupport.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * The Lettuce client through which a model replay ({@link ModelReplay}, {@link ReadWriteModelReplay}) talks
 * to its server: one connection that sends the steps, and the subscriptions a replay listens on. Closing
 * it closes them all and shuts the client down.
 */
final class ReplayClient implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final List<StatefulRedisPubSubConnection<String, String>> subscriptions = new ArrayList<>();

    ReplayClient(RedisServerProcess server) {
        client = RedisClient.create(RedisURI.create(server.host(), server.port()));
        connection = client.connect();
    }

    /** The connection the replay's steps go through. */
    StatefulRedisConnection<String, String> connection() {
        return connection;
    }

    /** Hands each message published on {@code channels} to {@code messages} (channel, message), from now until closed. */
    void subscribe(BiConsumer<String, String> messages, String... channels) {
        StatefulRedisPubSubConnection<String, String> subscription = client.connectPubSub();
        subscriptions.add(subscription);
        subscription.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                messages.accept(channel, message);
            }
        });
        subscription.sync().subscribe(channels);
    }

    @Override
    public void close() {
        subscriptions.forEach(StatefulRedisPubSubConnection::close);
        connection.close();
        client.shutdown();
    }
}
