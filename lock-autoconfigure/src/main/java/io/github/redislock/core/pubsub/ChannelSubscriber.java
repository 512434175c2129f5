package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ShardedChannels;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Opens the pub/sub connection of {@link ReleaseSubscriptions}: classic ({@code SUBSCRIBE} through
 * Spring Data Redis, any client) or, on a cluster that supports it, sharded ({@code SSUBSCRIBE} on the
 * master of each channel's slot, through Lettuce, which Spring Data Redis does not offer). The inbox is
 * always subscribed the classic way, as it belongs to no slot.
 *
 * <p>Opening and subscribing answer with futures and never block their caller: a wait on a lock runs
 * on a caller's thread or on one of the async locker's few threads, and a master that hangs with a
 * subscription to confirm must hold up no one but the waiters of its own channels.
 */
public interface ChannelSubscriber {

    /** Hears a subscription's messages and confirmations, on the client's event loop. */
    interface Listener {

        void message(byte[] channel, byte[] body);

        /** Redis confirmed {@code channel}: after its own subscribe, and again after every reconnect. */
        void subscribed(byte[] channel);

        /**
         * The connection broke for good: its client does not reconnect it (Jedis), so whatever it carried
         * must be subscribed again on a new one. Not called after {@link Subscription#close()}.
         */
        void lost();
    }

    /**
     * One open pub/sub connection. A channel's subscribe and unsubscribe run under that channel's
     * subscription monitor, several channels' at once.
     */
    interface Subscription {

        /** Whether it still carries its channels (the client re-subscribes them after a reconnect). */
        boolean isOpen();

        /**
         * Subscribes {@code channel}; the result completes once Redis confirmed it, or fails (a
         * {@link org.springframework.dao.DataAccessException}) when it could not within the client's
         * command timeout. Returns at once.
         */
        CompletableFuture<Void> subscribe(byte[] channel);

        /** Sends the unsubscribe; never waits for Redis. */
        void unsubscribe(byte[] channel);

        void close();
    }

    /**
     * A new connection subscribed to {@code inbox} and {@code channels}; completes once Redis confirmed
     * them, or fails (a {@link org.springframework.dao.DataAccessException}) when it could not within the
     * client's command timeout. Returns at once.
     */
    CompletableFuture<Subscription> open(byte[] inbox, List<byte[]> channels, Listener listener);

    /** Classic or sharded, as {@code sharded} decides when the first connection opens. */
    static ChannelSubscriber of(org.springframework.data.redis.connection.RedisConnectionFactory connectionFactory, ShardedChannels sharded) {
        ChannelSubscriber classic = new ClassicChannelSubscriber(connectionFactory);
        return (inbox, channels, listener) -> (sharded.sharded() ? new ShardedChannelSubscriber(sharded.clusterClient()) : classic)
                .open(inbox, channels, listener);
    }
}
