package io.github.redislock.core.pubsub;

import static io.github.redislock.core.pubsub.ReleaseSubscriptions.name;

import io.github.redislock.core.script.ScriptTransport;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubListener;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * {@code SSUBSCRIBE} through Lettuce's cluster pub/sub connection (the inbox, with no slot, classic on it). After a reconnect
 * Lettuce (6.6, 7.x) sends all shard channels of a master in one {@code SSUBSCRIBE}, which Redis refuses across slots
 * ({@code CROSSSLOT}): so every reconnect subscribes them again here, one command per slot. A channel also follows its slot:
 * Redis 7 unsubscribes those of a slot that moved, and a dead master's connection never comes back; then the topology is
 * read again, every {@link #REATTACH_INTERVAL} while that fails.
 */
final class ShardedSubscription extends RedisClusterPubSubAdapter<byte[], byte[]> implements ChannelSubscriber.Subscription, RedisConnectionStateListener {

    private static final Log log = LogFactory.getLog(ShardedSubscription.class);
    private static final Duration REATTACH_INTERVAL = Duration.ofSeconds(1);
    /** Passes in a row before giving up until the next event: two minutes covers a failover with a generous node timeout. */
    private static final int MAX_REATTACH_PASSES = 120;

    private final RedisClusterClient client;
    private final StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;
    private final ReleaseSubscriptions listener;
    /** Shard channels by name that a reconnect or a slot move brings back. */
    private final Map<String, byte[]> wanted = new ConcurrentHashMap<>();
    /** The node id of the master that confirmed each channel; none once Redis unsubscribed it by itself. */
    private final Map<String, String> confirmedBy = new ConcurrentHashMap<>();
    private final Set<RedisChannelHandler<?, ?>> down = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean reattachScheduled = new AtomicBoolean();
    private final AtomicInteger reattachPasses = new AtomicInteger();
    private volatile boolean closed;

    private ShardedSubscription(RedisClusterClient client, StatefulRedisClusterPubSubConnection<byte[], byte[]> connection,
                                byte[] inbox, ReleaseSubscriptions listener) {
        this.client = client;
        this.connection = connection;
        this.listener = listener;
        connection.addListener((RedisClusterPubSubListener<byte[], byte[]>) this);
        sent(() -> connection.async().subscribe(inbox));
        client.addListener(this);
    }

    static CompletableFuture<ChannelSubscriber.Subscription> open(RedisClusterClient client, byte[] inbox, ReleaseSubscriptions listener) {
        return ScriptTransport.started(() -> client.connectPubSubAsync(ByteArrayCodec.INSTANCE))
                .thenApply(connection -> new ShardedSubscription(client, connection, inbox, listener));
    }

    @Override
    public CompletableFuture<Void> subscribe(byte[] channel) {
        return ssubscribe(List.of(channel));
    }

    private CompletableFuture<Void> ssubscribe(Collection<byte[]> channels) {
        channels.forEach(channel -> wanted.put(name(channel), channel)); // a reconnect meanwhile subscribes it again
        return CompletableFuture.allOf(channels.stream().collect(Collectors.groupingBy(SlotHash::getSlot)).values().stream()
                .map(group -> sent(() -> connection.async().ssubscribe(group.toArray(byte[][]::new)))).toArray(CompletableFuture[]::new));
    }

    private static CompletableFuture<Void> sent(Supplier<RedisFuture<Void>> command) {
        return ScriptTransport.started(command).whenComplete((done, failure) -> {
            if (failure != null) {
                log.debug("Sharded pub/sub command failed", failure);
            }
        });
    }

    @Override
    public Duration timeout() {
        return connection.getTimeout();
    }

    @Override
    public boolean isOpen() {
        return connection.isOpen();
    }

    @Override
    public void unsubscribe(byte[] channel) {
        String name = name(channel);
        wanted.remove(name);
        confirmedBy.remove(name);
        sent(() -> connection.async().sunsubscribe(channel));
    }

    @Override
    public void close() {
        closed = true;
        client.removeListener(this);
        connection.close();
    }

    /** A pub/sub connection dropped: if its master is gone for good, its channels must move to its slots' new master. */
    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> disconnected) {
        if (disconnected instanceof StatefulRedisPubSubConnection<?, ?> && !wanted.isEmpty()) {
            down.add(disconnected);
            reattachPasses.set(0);
            scheduleReattach(REATTACH_INTERVAL);
        }
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> reconnected, SocketAddress address) {
        down.remove(reconnected);
        if (reconnected instanceof StatefulRedisPubSubConnection<?, ?> && !wanted.isEmpty()) {
            ssubscribe(List.copyOf(wanted.values()));
        }
    }

    private void scheduleReattach(Duration delay) {
        if (!closed && reattachScheduled.compareAndSet(false, true)) {
            client.getResources().eventExecutorGroup().schedule(this::reattach, delay.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** Reads the topology again and subscribes every channel not (or no longer) confirmed where its slot is served now. */
    private void reattach() {
        reattachScheduled.set(false);
        if (closed) {
            return;
        }
        client.refreshPartitionsAsync().whenComplete((refreshed, refreshFailure) -> {
            List<byte[]> moved = new ArrayList<>();
            wanted.forEach((name, channel) -> {
                RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(channel));
                String by = confirmedBy.get(name);
                if (by == null || master != null && !by.equals(master.getNodeId())) {
                    moved.add(channel);
                }
            });
            ssubscribe(moved).whenComplete((subscribed, failure) -> {
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
        listener.subscribed(channel, false);
    }

    @Override
    public void ssubscribed(RedisClusterNode node, byte[] channel, long count) {
        if (node != null && node.getNodeId() != null) {
            confirmedBy.put(name(channel), node.getNodeId());
        }
        listener.subscribed(channel, true);
    }

    /** Our own unsubscribe forgot the channel first: one still wanted was let go of by Redis. */
    @Override
    public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
        if (wanted.containsKey(name(channel))) {
            confirmedBy.remove(name(channel));
            reattachPasses.set(0);
            scheduleReattach(Duration.ZERO);
        }
    }
}
