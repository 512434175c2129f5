package io.github.redislock.core.pubsub;

import io.github.redislock.core.script.ScriptTransport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * {@code SSUBSCRIBE} through Lettuce's cluster pub/sub connection, which sends each channel's
 * subscription to the master of its slot (one connection per master it needs); the inbox, which has
 * no slot, is subscribed the classic way on the same connection. Spring Data Redis has no sharded
 * subscriptions, hence Lettuce's own API.
 *
 * <p>Why the re-subscription is done here: after a reconnect Lettuce (6.6 and 7.x alike) sends all
 * shard channels of a master in one {@code SSUBSCRIBE}, which Redis refuses ({@code CROSSSLOT}) as
 * soon as they lie in more than one slot, as the channels of several locks do. So every reconnect of a
 * pub/sub connection subscribes its master's channels again here, one command per slot, and their
 * confirmations wake the waiters as after any reconnect.
 *
 * <p>A channel also has to follow its slot. When a slot moves to another master (a resharding, or a
 * failover that promoted a replica) Redis 7 unsubscribes its shard channels on the old master, and a
 * dead master's channels are on a connection that will never come back; nothing subscribes them on
 * the new master by itself. So when Redis unsubscribes a channel still waited on, or a pub/sub
 * connection drops, the cluster's topology is read again and every such channel whose slot's master is
 * not the one that confirmed it is subscribed again, where its slot is served now (retried every
 * {@link #REATTACH_INTERVAL} while that fails or a connection stays down); its confirmation wakes its
 * waiters, which look at their lock as after a reconnect.
 */
final class ShardedChannelSubscriber implements ChannelSubscriber {

    private static final Log log = LogFactory.getLog(ShardedChannelSubscriber.class);
    /** How often channels that lost their master are tried again, while that fails or a connection is down. */
    static final Duration REATTACH_INTERVAL = Duration.ofSeconds(1);
    /** Passes in a row before giving up until the next event: two minutes covers a failover with a generous node timeout. */
    private static final int MAX_REATTACH_PASSES = 120;

    private final RedisClusterClient client;

    ShardedChannelSubscriber(RedisClusterClient client) {
        this.client = client;
    }

    /** Connects, subscribes the inbox and every channel (one SSUBSCRIBE per slot), and waits for none of it. */
    @Override
    public CompletableFuture<Subscription> open(byte[] inbox, List<byte[]> channels, Listener listener) {
        CompletableFuture<StatefulRedisClusterPubSubConnection<byte[], byte[]>> connecting;
        try {
            connecting = client.connectPubSubAsync(ByteArrayCodec.INSTANCE);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(failure("connection", e));
        }
        CompletableFuture<Subscription> opened = new CompletableFuture<>();
        connecting.whenComplete((connection, connectFailure) -> {
            if (connectFailure != null) {
                opened.completeExceptionally(failure("connection", asRuntime(unwrapped(connectFailure))));
                return;
            }
            ShardedSubscription subscription = new ShardedSubscription(connection);
            CompletableFuture<Void> confirmed;
            try {
                connection.addListener(new Delivery(listener));
                List<CompletableFuture<?>> replies = new ArrayList<>();
                replies.add(connection.async().subscribe(inbox).toCompletableFuture());
                replies.add(subscription.subscribeAll(channels));
                confirmed = CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).copy()
                        .orTimeout(connection.getTimeout().toNanos(), TimeUnit.NANOSECONDS);
            } catch (RuntimeException e) {
                confirmed = CompletableFuture.failedFuture(e);
            }
            confirmed.whenComplete((done, subscribeFailure) -> {
                if (subscribeFailure != null) {
                    subscription.close();
                    opened.completeExceptionally(failure("subscribe", asRuntime(unwrapped(subscribeFailure))));
                    return;
                }
                connection.addListener(subscription.slotWatcher);
                client.addListener(subscription);
                opened.complete(subscription);
            });
        });
        return opened;
    }

    private static Throwable unwrapped(Throwable e) {
        return e instanceof CompletionException wrapped && wrapped.getCause() != null ? wrapped.getCause() : e;
    }

    private static RuntimeException asRuntime(Throwable e) {
        return e instanceof RuntimeException runtime ? runtime
                : e instanceof TimeoutException ? new RedisCommandTimeoutException("No confirmation within the command timeout") : new IllegalStateException(e);
    }

    private static DataAccessResourceFailureException failure(String what, RuntimeException e) {
        return new DataAccessResourceFailureException("Sharded pub/sub " + what + " failed: " + ScriptTransport.rootMessage(e), e);
    }

    /** Channels grouped by slot: one SSUBSCRIBE may not cross slots. */
    private static Collection<List<byte[]>> bySlot(Collection<byte[]> channels) {
        Map<Integer, List<byte[]>> groups = new LinkedHashMap<>();
        for (byte[] channel : channels) {
            groups.computeIfAbsent(SlotHash.getSlot(channel), slot -> new ArrayList<>()).add(channel);
        }
        return groups.values();
    }

    private final class ShardedSubscription implements Subscription, RedisConnectionStateListener {

        private final StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;
        /** Confirmed shard channels by name: the ones a reconnect must bring back. */
        private final Map<String, byte[]> confirmed = new ConcurrentHashMap<>();
        /** The node id of the master that last confirmed each channel, where known. */
        private final Map<String, String> confirmedBy = new ConcurrentHashMap<>();
        /** Channels Redis unsubscribed by itself (their slot moved) while they are still waited on. */
        private final Set<String> detached = ConcurrentHashMap.newKeySet();
        /** Pub/sub connections of this client that dropped and have not come back. */
        private final Set<RedisChannelHandler<?, ?>> down = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean reattachScheduled = new AtomicBoolean();
        private final AtomicInteger reattachPasses = new AtomicInteger();
        final RedisClusterPubSubAdapter<byte[], byte[]> slotWatcher = new SlotWatcher();
        private volatile boolean closed;

        ShardedSubscription(StatefulRedisClusterPubSubConnection<byte[], byte[]> connection) {
            this.connection = connection;
        }

        /** Completes once every channel is confirmed, which a reconnect then subscribes again. */
        CompletableFuture<Void> subscribeAll(List<byte[]> channels) {
            List<CompletableFuture<Void>> replies = new ArrayList<>();
            for (List<byte[]> group : bySlot(channels)) {
                replies.add(connection.async().ssubscribe(group.toArray(byte[][]::new)).toCompletableFuture());
            }
            return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
                    .thenRun(() -> channels.forEach(channel -> confirmed.put(name(channel), channel)));
        }

        @Override
        public boolean isOpen() {
            return connection.isOpen();
        }

        /** Sent to the channel's master without waiting; only this channel's waiters wait for its confirmation. */
        @Override
        public CompletableFuture<Void> subscribe(byte[] channel) {
            confirmed.put(name(channel), channel); // a reconnect meanwhile subscribes it again
            CompletableFuture<Void> confirmation = new CompletableFuture<>();
            try {
                connection.async().ssubscribe(channel).toCompletableFuture().copy()
                        .orTimeout(connection.getTimeout().toNanos(), TimeUnit.NANOSECONDS)
                        .whenComplete((ignored, e) -> {
                            if (e == null) {
                                confirmation.complete(null);
                            } else {
                                confirmation.completeExceptionally(failure("SSUBSCRIBE of " + name(channel), asRuntime(unwrapped(e))));
                            }
                        });
            } catch (RuntimeException e) {
                confirmation.completeExceptionally(failure("SSUBSCRIBE of " + name(channel), e));
            }
            return confirmation;
        }

        @Override
        public void unsubscribe(byte[] channel) {
            confirmed.remove(name(channel));
            confirmedBy.remove(name(channel));
            detached.remove(name(channel));
            connection.async().sunsubscribe(channel).exceptionally(e -> {
                log.debug("SUNSUBSCRIBE of " + name(channel) + " failed; it stays subscribed until the connection closes", e);
                return null;
            });
        }

        @Override
        public void close() {
            closed = true;
            client.removeListener(this);
            connection.close();
        }

        /** A pub/sub connection dropped: if its master is gone for good, its channels must move to its slots' new master. */
        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            if (connection instanceof StatefulRedisPubSubConnection<?, ?> && !confirmed.isEmpty()) {
                down.add(connection);
                reattachPasses.set(0);
                scheduleReattach(REATTACH_INTERVAL);
            }
        }

        private void scheduleReattach(Duration delay) {
            if (!closed && reattachScheduled.compareAndSet(false, true)) {
                client.getResources().eventExecutorGroup().schedule(this::reattach, delay.toNanos(), TimeUnit.NANOSECONDS);
            }
        }

        /**
         * Reads the topology again and subscribes every channel Redis let go of, or whose slot another
         * master serves now than the one that confirmed it, on that master. Sends, never waits.
         */
        private void reattach() {
            reattachScheduled.set(false);
            if (closed) {
                return;
            }
            client.refreshPartitionsAsync().whenComplete((refreshed, refreshFailure) -> {
                List<byte[]> moved = new ArrayList<>();
                confirmed.forEach((name, channel) -> {
                    RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
                    String by = confirmedBy.get(name);
                    if (detached.contains(name) || master != null && by != null && !by.equals(master.getNodeId())) {
                        moved.add(channel);
                    }
                });
                List<CompletableFuture<?>> replies = new ArrayList<>();
                for (List<byte[]> group : bySlot(moved)) {
                    replies.add(connection.async().ssubscribe(group.toArray(byte[][]::new)).toCompletableFuture());
                }
                CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).whenComplete((subscribed, failure) -> {
                    if (refreshFailure == null && failure == null && down.isEmpty()) {
                        reattachPasses.set(0);
                    } else if (reattachPasses.incrementAndGet() < MAX_REATTACH_PASSES) {
                        log.debug("Shard channels not yet on their slots' masters (or a pub/sub connection is down); trying again in "
                                + REATTACH_INTERVAL.toMillis() + " ms", refreshFailure != null ? refreshFailure : failure);
                        scheduleReattach(REATTACH_INTERVAL);
                    }
                });
            });
        }

        /** Where each channel is confirmed, and Redis unsubscribing one by itself (its slot moved). */
        private final class SlotWatcher extends RedisClusterPubSubAdapter<byte[], byte[]> {

            @Override
            public void ssubscribed(RedisClusterNode node, byte[] channel, long count) {
                String name = name(channel);
                if (node != null && node.getNodeId() != null) {
                    confirmedBy.put(name, node.getNodeId());
                }
                detached.remove(name);
            }

            /** Our own unsubscribe forgot the channel before it was sent; one still wanted was let go of by Redis. */
            @Override
            public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
                String name = name(channel);
                if (confirmed.containsKey(name)) {
                    confirmedBy.remove(name);
                    detached.add(name);
                    reattachPasses.set(0);
                    scheduleReattach(Duration.ZERO);
                }
            }
        }

        /** Runs on the event loop of the reconnected connection: sends, never waits. */
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> reconnected, SocketAddress address) {
            down.remove(reconnected);
            if (!(reconnected instanceof StatefulRedisPubSubConnection<?, ?>) || confirmed.isEmpty()) {
                return;
            }
            List<byte[]> again = confirmed.values().stream().filter(channel -> servedAt(channel, address)).toList();
            if (again.isEmpty() && !knowsMasterAt(address)) {
                again = List.copyOf(confirmed.values()); // an address the topology names differently: all, to be sure
            }
            for (List<byte[]> group : bySlot(again)) {
                connection.async().ssubscribe(group.toArray(byte[][]::new)).exceptionally(e -> {
                    log.debug("Re-subscribing shard channels after a reconnect failed; their waiters look again when their wait times out", e);
                    return null;
                });
            }
        }

        private boolean servedAt(byte[] channel, SocketAddress address) {
            RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
            return master != null && sameAddress(master.getUri(), address);
        }

        private boolean knowsMasterAt(SocketAddress address) {
            for (RedisClusterNode node : connection.getPartitions()) {
                if (sameAddress(node.getUri(), address)) {
                    return true;
                }
            }
            return false;
        }

        private static boolean sameAddress(RedisURI uri, SocketAddress address) {
            return address instanceof InetSocketAddress inet && uri != null && uri.getPort() == inet.getPort()
                    && (uri.getHost().equals(inet.getHostString())
                            || inet.getAddress() != null && uri.getHost().equals(inet.getAddress().getHostAddress()));
        }

        private static String name(byte[] channel) {
            return new String(channel, StandardCharsets.UTF_8);
        }
    }

    /** Every node's messages and confirmations, classic (the inbox) and sharded (the lock channels). */
    private static final class Delivery extends RedisClusterPubSubAdapter<byte[], byte[]> {

        private final Listener listener;

        Delivery(Listener listener) {
            this.listener = listener;
        }

        @Override
        public void message(RedisClusterNode node, byte[] channel, byte[] message) {
            listener.message(channel, message);
        }

        @Override
        public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
            listener.message(channel, message);
        }

        @Override
        public void subscribed(RedisClusterNode node, byte[] channel, long count) {
            listener.subscribed(channel);
        }

        @Override
        public void ssubscribed(RedisClusterNode node, byte[] channel, long count) {
            listener.subscribed(channel);
        }
    }
}
