package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ShardedChannels;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Opens the pub/sub connection of {@link ReleaseSubscriptions}: classic ({@code SUBSCRIBE} through
 * Spring Data Redis) or, on a cluster that supports it, sharded ({@code SSUBSCRIBE} on the master of
 * each channel's slot, through Lettuce).
 *
 * <p>Opening and subscribing never block their caller (a wait's own thread, or one of the async
 * locker's few), so a master that hangs holds up only the waiters of its own channels. Their futures
 * complete once Redis confirmed, or fail with a {@link org.springframework.dao.DataAccessException}
 * when it did not within the client's command timeout.
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

        CompletableFuture<Void> subscribe(byte[] channel);

        /** Sends the unsubscribe; never waits for Redis. */
        void unsubscribe(byte[] channel);

        void close();
    }

    /** A new connection subscribed to {@code inbox} and {@code channels}. */
    CompletableFuture<Subscription> open(byte[] inbox, List<byte[]> channels, Listener listener);

    /** Classic or sharded, as {@code sharded} decides when the first connection opens. */
    static ChannelSubscriber of(RedisConnectionFactory connectionFactory, ShardedChannels sharded) {
        return (inbox, channels, listener) -> sharded.sharded() ? ShardedSubscription.open(sharded.clusterClient(), inbox, channels, listener)
                : ClassicSubscription.open(connectionFactory, inbox, channels, listener);
    }
}
