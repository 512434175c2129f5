package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ShardedChannels;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Opens the pub/sub connection of {@link ReleaseSubscriptions}: classic ({@code SUBSCRIBE} through
 * Spring Data Redis) or, on a cluster that supports it, sharded ({@code SSUBSCRIBE} on the master of
 * each channel's slot, through Lettuce). Opening and subscribing only send and never block their
 * caller, so a master that hangs holds up only the waiters of its own channels: Redis's confirmations
 * come to the {@link Listener}, and {@link ReleaseSubscriptions} waits for them.
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

        /** How long Redis may take to confirm a subscribe: the client's command timeout. */
        Duration timeout();

        /** Sends the subscribe; fails when it could not be sent. */
        CompletableFuture<Void> subscribe(byte[] channel);

        /** Sends the unsubscribe; never waits for Redis. */
        void unsubscribe(byte[] channel);

        void close();
    }

    /** A new connection subscribed to {@code inbox}, once it can send. */
    CompletableFuture<Subscription> open(byte[] inbox, Listener listener);

    /** Classic or sharded, as {@code sharded} decides when the first connection opens. */
    static ChannelSubscriber of(RedisConnectionFactory connectionFactory, ShardedChannels sharded) {
        return (inbox, listener) -> sharded.sharded() ? ShardedSubscription.open(sharded.clusterClient(), inbox, listener)
                : ClassicSubscription.open(connectionFactory, inbox, listener);
    }
}
