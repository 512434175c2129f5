package io.github.redislock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;

/** {@code SUBSCRIBE} on a connection of the factory: standalone, Sentinel, and clusters without sharded pub/sub. */
final class ClassicChannelSubscriber implements ChannelSubscriber {

    private final RedisConnectionFactory connectionFactory;

    ClassicChannelSubscriber(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
    }

    @Override
    public Subscription open(byte[] inbox, List<byte[]> channels, Listener listener) {
        List<byte[]> names = new ArrayList<>();
        names.add(inbox);
        names.addAll(channels);
        RedisConnection connection = connectionFactory.getConnection();
        try {
            connection.subscribe(new Delivery(listener), names.toArray(byte[][]::new));
        } catch (RuntimeException e) {
            connection.close();
            throw e;
        }
        return new Subscription() {
            @Override
            public boolean isOpen() {
                return connection.isSubscribed();
            }

            /** Spring Data Redis subscribes synchronously; a classic connection has one server, so nobody else could go on anyway. */
            @Override
            public CompletableFuture<Void> subscribe(byte[] channel) {
                try {
                    connection.getSubscription().subscribe(channel);
                    return CompletableFuture.completedFuture(null);
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
            }

            @Override
            public void unsubscribe(byte[] channel) {
                connection.getSubscription().unsubscribe(channel);
            }

            @Override
            public void close() {
                connection.close();
            }
        };
    }

    private record Delivery(Listener listener) implements MessageListener, SubscriptionListener {

        @Override
        public void onMessage(Message message, byte[] pattern) {
            listener.message(message.getChannel(), message.getBody());
        }

        @Override
        public void onChannelSubscribed(byte[] channel, long count) {
            listener.subscribed(channel);
        }
    }
}
