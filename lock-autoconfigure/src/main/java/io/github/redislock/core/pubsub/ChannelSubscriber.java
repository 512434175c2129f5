package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ShardedChannels;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/** Opens the pub/sub connection, classic or sharded; never blocks its caller, so a hung master holds up only its own channels' waiters. */
public interface ChannelSubscriber {

    /** One open pub/sub connection; its client subscribes its channels again after a reconnect. */
    interface Subscription {
        boolean isOpen();

        /** The client's command timeout, for Redis to confirm a subscribe. */
        Duration timeout();

        CompletableFuture<Void> subscribe(byte[] channel);

        void unsubscribe(byte[] channel);

        void close();
    }

    CompletableFuture<Subscription> open(byte[] inbox, ReleaseSubscriptions listener);

    static ChannelSubscriber of(RedisConnectionFactory connectionFactory, ShardedChannels sharded) {
        return (inbox, listener) -> sharded.shardedAsync("(release channels)").thenCompose(shardedChannels -> shardedChannels
                ? ShardedSubscription.open(sharded.clusterClient(), inbox, listener) : ClassicSubscription.open(connectionFactory, inbox, listener));
    }
}
