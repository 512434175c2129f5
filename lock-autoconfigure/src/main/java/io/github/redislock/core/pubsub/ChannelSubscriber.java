package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ShardedChannels;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Opens the pub/sub connection of {@link ReleaseSubscriptions}, classic or sharded. Opening and subscribing
 * only send and never block their caller, so a master that hangs holds up only the waiters of its own channels.
 */
public interface ChannelSubscriber {

    /** Hears a subscription's messages and confirmations, on the client's event loop. */
    interface Listener {
        void message(byte[] channel, byte[] body);

        /** Redis confirmed {@code channel}: after its own subscribe, and again after every reconnect. */
        void subscribed(byte[] channel);

        /** The connection broke and its client does not reconnect it (Jedis); not called after {@link Subscription#close()}. */
        void lost();
    }

    /** One open pub/sub connection; its client subscribes its channels again after a reconnect. */
    interface Subscription {
        boolean isOpen();

        /** The client's command timeout, for Redis to confirm a subscribe. */
        Duration timeout();

        CompletableFuture<Void> subscribe(byte[] channel);

        void unsubscribe(byte[] channel);

        void close();
    }

    CompletableFuture<Subscription> open(byte[] inbox, Listener listener);

    /** Sharded when {@code sharded} says so as the connection opens. */
    static ChannelSubscriber of(RedisConnectionFactory connectionFactory, ShardedChannels sharded) {
        return (inbox, listener) -> sharded.sharded() ? ShardedSubscription.open(sharded.clusterClient(), inbox, listener)
                : ClassicSubscription.open(connectionFactory, inbox, listener);
    }
}
