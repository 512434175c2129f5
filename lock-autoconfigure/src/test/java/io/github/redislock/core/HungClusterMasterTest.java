package io.github.redislock.core;

import io.github.redislock.core.pubsub.ChannelSubscriber;
import io.github.redislock.core.pubsub.ReleaseSubscriptions;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.ShardedChannels;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockHandle;
import io.github.redislock.LockObserver;
import io.github.redislock.testsupport.RedisClusterProcesses;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;
import io.lettuce.core.cluster.SlotHash;

import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

/**
 * One master of a 3-master cluster hangs ({@code SIGSTOP}): what waits for it must hold up nothing that
 * concerns the healthy masters only.
 */
class HungClusterMasterTest {

    /** Long enough that a thread blocked for a confirmation stays blocked through every check below. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(8);
    /** Well inside the command timeout: what an acquisition and release on a healthy master may take meanwhile. */
    private static final long HEALTHY_WITHIN_MILLIS = 2_000;

    static RedisClusterProcesses cluster;
    static boolean serversHaveShardedPubSub;

    LettuceConnectionFactory connectionFactory;
    PausesMasterAtSubscribe subscriber;
    RedisLocker locker;
    RedisAsyncLocker async;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterProcesses.start(3, TestRedis::startNew);
        String version = cluster.masters().get(0).info("server").get("redis_version");
        serversHaveShardedPubSub = Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7;
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    /**
     * An instance on the cluster, built by hand to watch its subscriptions.
     *
     * @param pooled a pool of connections and no shared one: the path of a pooled factory, and of Jedis,
     *               where each call borrows a connection and waits on its thread
     */
    void connect(boolean pooled, Duration watchdogTimeout) {
        LettuceClientConfiguration client = pooled
                ? LettucePoolingClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).poolConfig(new GenericObjectPoolConfig<>()).build()
                : LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build();
        connectionFactory = new LettuceConnectionFactory(new RedisClusterConfiguration(cluster.addresses()), client);
        connectionFactory.setShareNativeConnection(!pooled);
        connectionFactory.afterPropertiesSet();
        connectionFactory.start();
        ShardedChannels sharded = new ShardedChannels(connectionFactory);
        LockCommands commands = new LockCommands(connectionFactory, Duration.ofSeconds(30), null, sharded, false);
        LockWatchdog watchdog = new LockWatchdog(watchdogTimeout, commands, LockObserver.NONE);
        subscriber = new PausesMasterAtSubscribe(ChannelSubscriber.of(connectionFactory, sharded), cluster.masters().get(0), 2);
        locker = new RedisLocker(commands, watchdog, new ReleaseSubscriptions(subscriber, LockerFixture.PREFIX + "__anchor"),
                LockerFixture.PREFIX, event -> {
                }, LockObserver.NONE);
        async = new RedisAsyncLocker(locker);
    }

    @AfterEach
    void disconnect() {
        RedisServerProcess master = cluster.masters().get(0);
        if (master.isPaused()) {
            master.resume();
        }
        if (locker != null) {
            async.close();
            locker.close();
            connectionFactory.destroy();
        }
    }

    /**
     * The async locker runs every wait's steps on two threads; a wait that blocked one of them for its
     * subscription's confirmation would stop every async acquisition and release of the instance, on
     * every master, for up to the command timeout. The master is paused at the moment both waits send
     * their subscriptions: their tries have been answered by then, so only the subscriptions hang, as
     * when a master hangs between a wait's try and its subscription.
     *
     * <p>Not checked here: a wait on a healthy master woken by a hand-off. The hand-off comes on this
     * instance's inbox, a classic channel that Lettuce subscribes on one node of its choice; when that
     * is the hung master, such a wait learns of its lock only at its next look (within a ninth of the
     * watchdog timeout, when it refreshes its queue place).
     */
    @Test
    void asyncWaitsOnAHungMastersChannelsHoldUpNoAcquisitionOrReleaseOnAHealthyMaster() throws Exception {
        assumeTrue(serversHaveShardedPubSub, "classic channels are all subscribed on one connection to one node");
        connect(false, Duration.ofSeconds(30));
        List<String> onHanging = keysOnMaster("waits", 0, 3);
        String onHealthy = keysOnMaster("waits", 1, 1).get(0);
        String onOtherHealthy = keysOnMaster("waits", 2, 1).get(0);
        // Everything that asks every master (sharded pub/sub detection, the pub/sub connection, script loading) while all answer.
        for (String key : List.of(onHealthy, onOtherHealthy)) {
            async.release(async.acquire(key, Duration.ZERO, null).get(10, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS);
        }
        Internals.join(locker, channel(onHanging.get(2))).close();
        Internals.join(locker, channel(onHealthy)).close();

        locker.lock(onHanging.get(0));
        locker.lock(onHanging.get(1));
        subscriber.arm();
        CompletableFuture<LockHandle> firstHungWait = async.acquire(onHanging.get(0), Duration.ofSeconds(30), null);
        CompletableFuture<LockHandle> secondHungWait = async.acquire(onHanging.get(1), Duration.ofSeconds(30), null);
        subscriber.paused.get(10, TimeUnit.SECONDS);
        long pausedAt = System.nanoTime();
        try {
            for (String key : List.of(onHealthy, onOtherHealthy)) {
                LockHandle held = async.acquire(key, Duration.ZERO, null).get(HEALTHY_WITHIN_MILLIS, TimeUnit.MILLISECONDS);
                async.release(held).get(HEALTHY_WITHIN_MILLIS, TimeUnit.MILLISECONDS);
            }

            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt))
                    .as("ms for acquisitions and releases on the healthy masters while another hung")
                    .isLessThan(COMMAND_TIMEOUT.toMillis());
            assertThat(firstHungWait).as("a wait whose channel's master hangs").isNotDone();
            assertThat(secondHungWait).as("a wait whose channel's master hangs").isNotDone();
        } finally {
            cluster.masters().get(0).resume();
        }
        locker.unlock(onHanging.get(0));
        locker.unlock(onHanging.get(1));
        async.release(firstHungWait.get(15, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS);
        async.release(secondHungWait.get(15, TimeUnit.SECONDS)).get(10, TimeUnit.SECONDS);
    }

    /**
     * Without a shared native connection (a pool, Jedis) every renewal batch is a call that waits for
     * its master on a thread. Were they made one after another while the watchdog sends its tick, an
     * unlock, which stops the lock's renewal and so waits for the sending, would wait for the hung
     * master's batch, up to the command timeout, whatever master its own lock is on.
     */
    @Test
    void anUnlockOnAHealthyMasterDoesNotWaitForARenewalStuckOnAHungOneWithoutASharedConnection() throws Exception {
        connect(true, Duration.ofSeconds(15)); // a tick waits up to 5 s (15 s / 3) for the hung master; its lock outlives the pause
        warmPool(6); // a new cluster connection starts on a node of Lettuce's choice, which may be the one that hangs
        String onHealthy = keysOnMaster("renewal", 1, 1).get(0);
        List<String> keys = List.of(onHealthy, keysOnMaster("renewal", 2, 1).get(0), keysOnMaster("renewal", 0, 1).get(0)); // the hung master's batch last
        keys.forEach(locker::lock);
        locker.unlock(onHealthy); // the first release asks every master whether it knows SPUBLISH
        locker.lock(onHealthy);
        locker.watchdog.renewNow(); // loads the renewal script on every master
        RedisServerProcess hanging = cluster.masters().get(0);
        RedisServerProcess healthy = cluster.masters().get(1);
        long renewalsOnHealthy = healthy.commandCount("evalsha");
        hanging.pause();
        CompletableFuture<Void> tick;
        long unlockMillis;
        try {
            tick = CompletableFuture.runAsync(() -> locker.watchdog.renewNow());
            await().atMost(Duration.ofSeconds(5)).until(() -> healthy.commandCount("evalsha") > renewalsOnHealthy);

            long unlockStart = System.nanoTime();
            locker.unlock(onHealthy);
            unlockMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - unlockStart);
        } finally {
            hanging.resume();
        }
        assertThat(unlockMillis).as("ms the unlock on a healthy master took while a renewal waited for the hung one")
                .isLessThan(HEALTHY_WITHIN_MILLIS);
        tick.handle((done, failed) -> null).get(15, TimeUnit.SECONDS);
        keys.stream().filter(key -> !key.equals(onHealthy)).forEach(locker::unlock);
        assertThat(locker.isLocked(onHealthy)).isFalse();
    }

    /** Opens {@code connections} pooled connections at once, while every master answers, and returns them to the pool. */
    private void warmPool(int connections) {
        List<RedisConnection> borrowed = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                RedisConnection connection = connectionFactory.getConnection();
                borrowed.add(connection);
                connection.keyCommands().exists("warm-up".getBytes(StandardCharsets.UTF_8));
            }
        } finally {
            borrowed.forEach(RedisConnection::close);
        }
    }

    private static String channel(String key) {
        return LockerFixture.PREFIX + "{" + LockerFixture.PREFIX + key + "}:released";
    }

    /** {@code count} lock keys on master {@code master}, each in a slot of its own, named for the test that uses them. */
    private static List<String> keysOnMaster(String test, int master, int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            String key = test + "-" + master + "-" + i;
            if (cluster.masterOf(SlotHash.getSlot(LockerFixture.PREFIX + key)) == master) {
                keys.add(key);
            }
        }
        return keys;
    }

    /**
     * Once armed, holds back the subscriptions of channels on {@code master} until {@code arrivals} of
     * them were asked for, then pauses that master and sends them: they reach a hung master.
     */
    private static final class PausesMasterAtSubscribe implements ChannelSubscriber {

        private final ChannelSubscriber delegate;
        private final RedisServerProcess master;
        private final int arrivals;
        private final AtomicInteger arrived = new AtomicInteger();
        private volatile boolean armed;
        final CompletableFuture<Void> paused = new CompletableFuture<>();

        PausesMasterAtSubscribe(ChannelSubscriber delegate, RedisServerProcess master, int arrivals) {
            this.delegate = delegate;
            this.master = master;
            this.arrivals = arrivals;
        }

        void arm() {
            armed = true;
        }

        @Override
        public CompletableFuture<Subscription> open(byte[] inbox, ReleaseSubscriptions listener) {
            return delegate.open(inbox, listener).thenApply(this::holdingBack);
        }

        private Subscription holdingBack(Subscription subscription) {
            return new Subscription() {
                @Override
                public boolean isOpen() {
                    return subscription.isOpen();
                }

                @Override
                public Duration timeout() {
                    return subscription.timeout();
                }

                @Override
                public CompletableFuture<Void> subscribe(byte[] channel) {
                    if (!armed || cluster.masterOf(SlotHash.getSlot(channel)) != cluster.masters().indexOf(master)) {
                        return subscription.subscribe(channel);
                    }
                    if (arrived.incrementAndGet() == arrivals) {
                        master.pause();
                        paused.complete(null);
                    }
                    return paused.thenCompose(hung -> subscription.subscribe(channel));
                }

                @Override
                public void unsubscribe(byte[] channel) {
                    subscription.unsubscribe(channel);
                }

                @Override
                public void close() {
                    subscription.close();
                }
            };
        }
    }
}
