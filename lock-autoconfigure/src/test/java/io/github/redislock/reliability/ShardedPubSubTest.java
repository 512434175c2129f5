package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.Locker;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.core.Internals;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.script.LockCommands;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.ShardedChannels;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisBinary;
import io.github.redislock.testsupport.RedisClusterProcesses;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Release messages on a 3-master Redis Cluster. Where every master knows {@code SPUBLISH} (Redis 7+)
 * a lock's channel is sharded: the release is an {@code SPUBLISH} on the lock's own master, which no
 * other master hears over the cluster bus. On a cluster that predates it (Redis 6.2, this class's
 * server-matrix leg) it stays a classic {@code PUBLISH}, which every master hears. Either way the
 * waiter is woken by the message, not by its own retry.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardedPubSubTest {

    static RedisClusterProcesses cluster;
    static List<RedisServerProcess> nodes;
    /** What the servers can do, read from them, as the starter reads it. */
    static boolean serversHaveShardedPubSub;

    @BeforeAll
    static void startCluster() {
        String version = RedisBinary.version();
        serversHaveShardedPubSub = Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7;
        // DEBUG CLUSTERLINK (Redis 7+, Valkey) cuts a master's cluster bus links; Redis 6.2 knows neither it nor the option.
        cluster = RedisClusterProcesses.start(3, options -> TestRedis.startNew(serversHaveShardedPubSub
                ? java.util.stream.Stream.concat(java.util.Arrays.stream(options), java.util.stream.Stream.of("--enable-debug-command", "local")).toArray(String[]::new)
                : options));
        nodes = cluster.masters();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    ApplicationContextRunner contextRunner() {
        // A long watchdog timeout keeps the waiters' own retries far apart: only a message can wake them in time.
        return new ApplicationContextRunner().withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.cluster.nodes=" + String.join(",", cluster.addresses()),
                        "spring.data.redis.timeout=2s", "redis-lock.watchdog-timeout=30s");
    }

    @Test
    void aReleaseReachesOnlyTheMasterOfItsLockWhereShardedPubSubExists() {
        contextRunner().run(context -> {
            for (String key : ClusterTest.keysOnEveryMaster()) {
                RedisServerProcess home = nodes.get(ClusterTest.masterOf(key));
                List<RedisServerProcess> others = nodes.stream().filter(node -> node != home).toList();
                nodes.forEach(RedisServerProcess::resetStats);
                long[] classicBefore = others.stream().mapToLong(node -> busReceived(node, "publish")).toArray();
                long[] shardedBefore = others.stream().mapToLong(node -> busReceived(node, "publishshard")).toArray();

                assertAWriteReleaseWakesAReader(context, key);
                long classicPublishes = nodes.stream().mapToLong(node -> node.commandCount("publish")).sum();

                // A probe over the bus: once the others heard it, they heard every message sent before it.
                home.command("PUBLISH", "probe", "bus-flushed");
                for (int i = 0; i < others.size(); i++) {
                    RedisServerProcess other = others.get(i);
                    long before = classicBefore[i];
                    await().atMost(Duration.ofSeconds(5)).until(() -> busReceived(other, "publish") > before);
                }
                for (int i = 0; i < others.size(); i++) {
                    long classicHeard = busReceived(others.get(i), "publish") - classicBefore[i];
                    long shardedHeard = busReceived(others.get(i), "publishshard") - shardedBefore[i];
                    if (serversHaveShardedPubSub) {
                        assertThat(classicHeard).as("classic messages another master heard: the probe alone").isEqualTo(1);
                        assertThat(shardedHeard).as("sharded messages another master heard").isZero();
                    } else {
                        assertThat(classicHeard).as("classic messages another master heard: the release(s) and the probe").isGreaterThanOrEqualTo(2);
                    }
                }
                if (serversHaveShardedPubSub) {
                    assertThat(home.commandCount("spublish")).as("SPUBLISH on the master of '%s'", key).isPositive();
                    assertThat(classicPublishes).as("PUBLISH calls on any master").isZero();
                } else {
                    assertThat(home.commandCount("publish")).as("PUBLISH on the master of '%s'", key).isPositive();
                    assertThat(nodes.stream().mapToLong(node -> node.commandCount("spublish")).sum()).isZero();
                }
            }
        });
    }

    @Test
    void aFirstScriptSentFromTheEventLoopLearnsHowToPublishOffIt() {
        contextRunner().run(context -> {
            LettuceConnectionFactory factory = context.getBean(LettuceConnectionFactory.class);
            // as a Locker built while the cluster did not answer: the publish mode is not known yet
            LockCommands commands = new LockCommands(factory, Duration.ofSeconds(30), null, new ShardedChannels(factory), false);
            @SuppressWarnings("unchecked")
            RedisClusterAsyncCommands<byte[], byte[]> lettuce = (RedisClusterAsyncCommands<byte[], byte[]>) factory.getConnection().getNativeConnection();
            AtomicReference<String> firstScriptThread = new AtomicReference<>();

            // a reactive pipeline's next step, after a reply that comes late enough to be read on the event loop
            CompletableFuture<long[]> released = lettuce.blpop(0.2, "nothing-to-pop".getBytes()).toCompletableFuture().thenCompose(nothing -> {
                firstScriptThread.set(Thread.currentThread().getName());
                return commands.releaseAsync(List.of(LockKeys.of(LockerFixture.PREFIX, "never-held")), "nobody", new long[1], new long[1], null, false);
            });

            assertThat(released.get(5, TimeUnit.SECONDS)).as("the release of a lock nobody holds").containsExactly(-1);
            assertThat(firstScriptThread.get()).as("the thread the first script was sent from").contains("nioEventLoop");
        });
    }

    @Test
    void aFairLocksNextWaiterIsToldOnItsTurnChannel() {
        contextRunner().run(context -> {
            Locker locker = context.getBean(Locker.class);
            for (String key : ClusterTest.keysOnEveryMaster()) {
                RedisServerProcess home = nodes.get(ClusterTest.masterOf(key));
                nodes.forEach(RedisServerProcess::resetStats);
                var fair = locker.getFairLock(key);
                fair.lock();
                CompletableFuture<Long> acquiredAt = takeAndRelease(locker.getFairLock(key), "fair waiter of " + key);
                awaitWaiters(context, 1, acquiredAt);
                long releasedAt = System.nanoTime();
                fair.unlock();
                assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(15, TimeUnit.SECONDS) - releasedAt))
                        .as("ms from the release of fair '%s' until its next waiter held it", key).isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
                assertThat(home.commandCount(serversHaveShardedPubSub ? "spublish" : "publish")).as("turn messages on the master of '%s'", key)
                        .isPositive();
            }
        });
    }

    /**
     * A classic PUBLISH crosses the cluster bus to the master the subscriber is connected to, and the bus
     * drops it while that link reconnects (after half the node timeout without an answer, a CI machine
     * under load; Valkey 8.0 also drops one sent on a new link before its first PING). So the hand-off
     * to a queued waiter, addressed to its instance's inbox, must not travel that way: the test cuts the
     * bus links between the lock's master and the inbox's just before the release.
     */
    @Test
    void aHandOffReachesItsWaiterWhileTheClusterBusLinksOfItsLocksMasterReconnect() {
        assumeTrue(serversHaveShardedPubSub, "DEBUG CLUSTERLINK needs Redis 7; on Redis 6.2 every message crosses the bus");
        contextRunner().run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            Internals.join(locker, releaseChannel("opens-the-connection")).close(); // the connection stays, with the inbox on one master
            RedisServerProcess inboxMaster = nodes.stream().filter(node -> !((List<?>) node.command("PUBSUB", "CHANNELS")).isEmpty())
                    .findFirst().orElseThrow();
            String inboxMasterId = String.valueOf(inboxMaster.command("CLUSTER", "MYID"));
            String key = ClusterTest.keysOnEveryMaster().stream().filter(candidate -> nodes.get(ClusterTest.masterOf(candidate)) != inboxMaster)
                    .findFirst().orElseThrow();
            RedisServerProcess home = nodes.get(ClusterTest.masterOf(key));
            Waiters.assertAReleaseWakesAWaiter(context, key, () -> home.command("DEBUG", "CLUSTERLINK", "KILL", "ALL", inboxMasterId));
        });
    }

    /**
     * Read-write locks freed while nobody heard it (their keys deleted, no message), then every pub/sub
     * connection cut: when the client subscribes the channels again, the confirmations must send the
     * waiting readers to look at their locks, long before their own retries would. Readers do not queue,
     * so only their lock's channel can wake them, not the inbox. Two locks per master, in different
     * slots: one SSUBSCRIBE of both channels would be refused (CROSSSLOT).
     */
    @Test
    void channelsSubscribedAgainAfterAReconnectWakeTheirWaiters() {
        contextRunner().run(context -> {
            Locker locker = context.getBean(Locker.class);
            List<String> keys = ClusterTest.keysOnEveryMaster(2);
            List<CompletableFuture<Long>> acquiredAt = new java.util.ArrayList<>();
            for (String key : keys) {
                locker.getReadWriteLock(key).writeLock().lock();
                CompletableFuture<Long> reader = takeAndRelease(locker.getReadWriteLock(key).readLock(), "reader of " + key);
                acquiredAt.add(reader);
                awaitWaiters(context, acquiredAt.size(), reader);
            }
            for (String key : keys) { // freed without a release message; the writer's own hold is simply gone
                nodes.get(ClusterTest.masterOf(key)).command("DEL", "lock:" + key, "lock:{lock:" + key + "}:leases", "lock:{lock:" + key + "}:fence");
            }
            long cutAt = System.nanoTime();
            nodes.forEach(node -> node.command("CLIENT", "KILL", "TYPE", "pubsub"));
            for (int i = 0; i < keys.size(); i++) {
                assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(i).get(15, TimeUnit.SECONDS) - cutAt))
                        .as("ms from the cut until the reader of '%s' held it", keys.get(i)).isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
            }
        });
    }

    /**
     * A reader waits on a lock whose hash slot then moves to another master (a resharding: its keys
     * migrated, the slot assigned anew). Redis 7 unsubscribes the slot's shard channels on the old
     * master; the writer's release is published on the new one, where the channel must be subscribed
     * again for the release to wake the reader.
     */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    void aChannelWhoseSlotMovedToAnotherMasterIsSubscribedThereAndWakesItsWaiter() {
        assumeTrue(serversHaveShardedPubSub, "classic channels do not belong to a slot");
        contextRunner().run(context -> {
            Locker locker = context.getBean(Locker.class);
            String key = ClusterTest.keysOnEveryMaster(1).stream().filter(candidate -> ClusterTest.masterOf(candidate) == 0).findFirst().orElseThrow();
            int slot = org.springframework.data.redis.connection.ClusterSlotHashUtil.calculateSlot("lock:" + key);
            RedisReadWriteLock lock = locker.getReadWriteLock(key);
            lock.writeLock().lock();
            CompletableFuture<Long> acquiredAt = takeAndRelease(lock.readLock(), "reader of " + key);
            awaitWaiters(context, 1, acquiredAt);
            assertThat(shardChannelsOn(nodes.get(0))).as("shard channels on the master of '%s'", key).contains(releaseChannel(key));
            moveSlot(slot, nodes.get(0), nodes.get(1));
            try {
                // The old master unsubscribed the channel; give the client the moment a re-subscription takes.
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                        .until(() -> shardChannelsOn(nodes.get(1)).contains(releaseChannel(key)));
                long releasedAt = System.nanoTime();
                lock.writeLock().unlock();
                assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(15, TimeUnit.SECONDS) - releasedAt))
                        .as("ms from the release of '%s' on its new master until the reader held it", key).isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
            } finally {
                acquiredAt.handle((at, failed) -> null).get(15, TimeUnit.SECONDS);
                moveSlot(slot, nodes.get(1), nodes.get(0));
            }
        });
    }

    /** The shard channels {@code node} has subscribers for now. */
    @SuppressWarnings("unchecked")
    private static List<String> shardChannelsOn(RedisServerProcess node) {
        return ((List<Object>) node.command("PUBSUB", "SHARDCHANNELS")).stream().map(String::valueOf).toList();
    }

    /** Reshards one slot as redis-cli does: importing/migrating, its keys migrated, then every master told its new owner. */
    private static void moveSlot(int slot, RedisServerProcess from, RedisServerProcess to) {
        String fromId = String.valueOf(from.command("CLUSTER", "MYID"));
        String toId = String.valueOf(to.command("CLUSTER", "MYID"));
        to.command("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", fromId);
        from.command("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", toId);
        while (true) {
            @SuppressWarnings("unchecked")
            List<Object> keys = (List<Object>) from.command("CLUSTER", "GETKEYSINSLOT", Integer.toString(slot), "100");
            if (keys.isEmpty()) {
                break;
            }
            List<String> migrate = new java.util.ArrayList<>(List.of("MIGRATE", to.host(), Integer.toString(to.port()), "", "0", "5000", "KEYS"));
            keys.forEach(name -> migrate.add(String.valueOf(name)));
            from.command(migrate.toArray(String[]::new));
        }
        to.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId);
        from.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId);
        nodes.stream().filter(node -> node != from && node != to).forEach(node -> node.command("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId));
    }

    /**
     * A subscription waiting for a paused master (its SSUBSCRIBE unanswered) holds up only the waiters
     * of that master's channels: joining and leaving a channel on a healthy master goes on meanwhile.
     */
    @Test
    @Order(Integer.MAX_VALUE) // last: the paused master may take the others a moment to trust again
    void aSubscriptionHangingOnOneMasterHoldsUpNoWaiterOnAnother() {
        assumeTrue(serversHaveShardedPubSub, "classic channels are all subscribed on one connection to one node");
        contextRunner().withPropertyValues("spring.data.redis.timeout=5s").run(context -> {
            RedisLocker locker = context.getBean(RedisLocker.class);
            List<String> keys = ClusterTest.keysOnEveryMaster(1);
            String onHanging = releaseChannel(keys.stream().filter(key -> ClusterTest.masterOf(key) == 0).findFirst().orElseThrow());
            String onHealthy = releaseChannel(keys.stream().filter(key -> ClusterTest.masterOf(key) == 1).findFirst().orElseThrow());
            Internals.join(locker, onHealthy).close(); // the pub/sub connection opens while every master answers
            RedisServerProcess hanging = nodes.get(0);
            hanging.pause();
            CompletableFuture<AutoCloseable> hangingJoin = new CompletableFuture<>();
            try {
                Thread joiner = new Thread(() -> {
                    try {
                        hangingJoin.complete(Internals.join(locker, onHanging));
                    } catch (Throwable e) {
                        hangingJoin.completeExceptionally(e);
                    }
                }, "joins a channel of the paused master");
                joiner.start();
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                        .until(() -> joiner.getState() == Thread.State.WAITING || joiner.getState() == Thread.State.TIMED_WAITING || hangingJoin.isDone());
                assertThat(hangingJoin).as("join on the paused master").isNotDone();

                AutoCloseable joined = CompletableFuture.supplyAsync(() -> Internals.join(locker, onHealthy)).get(15, TimeUnit.SECONDS);
                assertThat(hangingJoin).as("join on the paused master still waiting when the join on a healthy one returned").isNotDone();
                CompletableFuture.runAsync(() -> close(joined)).get(15, TimeUnit.SECONDS);
                assertThat(hangingJoin).as("join on the paused master still waiting when a wait on a healthy one closed").isNotDone();
            } finally {
                hanging.resume();
            }
            hangingJoin.handle((joined, failed) -> {
                if (joined != null) {
                    close(joined);
                }
                return null;
            }).get(15, TimeUnit.SECONDS);
        });
    }

    private static String releaseChannel(String key) {
        return "lock:{lock:" + key + "}:released";
    }

    private static void close(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A reader waits for the writer; the writer's release (an 'all' message on the lock's channel) must wake it. */
    static void assertAWriteReleaseWakesAReader(ApplicationContext context, String key) throws Exception {
        RedisReadWriteLock lock = context.getBean(Locker.class).getReadWriteLock(key);
        lock.writeLock().lock();
        CompletableFuture<Long> acquiredAt = takeAndRelease(lock.readLock(), "reader of " + key);
        awaitWaiters(context, 1, acquiredAt);
        long releasedAt = System.nanoTime();
        lock.writeLock().unlock();
        assertThat(TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(15, TimeUnit.SECONDS) - releasedAt))
                .as("ms from the write release of '%s' until the reader held it", key).isLessThan(LockerFixture.WOKEN_WITHIN.toMillis());
    }

    /** Completes with when a thread of its own took {@code lock} (waiting up to 10 s), which it then released. */
    private static CompletableFuture<Long> takeAndRelease(java.util.concurrent.locks.Lock lock, String who) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(lock.tryLock(10, TimeUnit.SECONDS)).as("%s got the lock", who).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
    }

    /** Waits for {@code count} waiters; fails with {@code waiter}'s own failure when it ended instead of waiting. */
    private static void awaitWaiters(ApplicationContext context, int count, CompletableFuture<Long> waiter) throws Exception {
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
                .until(() -> context.getBean(RedisLocker.class).waiterCount() == count || waiter.isDone());
        if (waiter.isDone()) {
            waiter.get();
            throw new AssertionError("The waiter got the lock at once; it should have waited");
        }
    }

    /** {@code cluster_stats_messages_<type>_received} of CLUSTER INFO; absent (never received) counts as 0. */
    static long busReceived(RedisServerProcess node, String type) {
        String info = (String) node.command("CLUSTER", "INFO");
        Map<String, String> fields = new java.util.HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return Long.parseLong(fields.getOrDefault("cluster_stats_messages_" + type + "_received", "0"));
    }
}
