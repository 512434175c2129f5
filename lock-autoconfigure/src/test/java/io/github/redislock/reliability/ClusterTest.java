package io.github.redislock.reliability;

import io.github.redislock.core.Internals;
import io.github.redislock.core.RedisAsyncLocker;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.WatchdogState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.redislock.LockHandle;
import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisClusterProcesses;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The starter configured only through {@code spring.data.redis.cluster.nodes}, on a Redis Cluster of
 * three masters started as local processes and joined by the test (CLUSTER MEET, ADDSLOTS).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterTest {

    static RedisClusterProcesses cluster;
    static List<RedisServerProcess> nodes;
    /** Rows of the reliability report's Cluster table. */
    static final List<String> results = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterProcesses.start(3, TestRedis::startNew);
        nodes = cluster.masters();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
        report();
    }

    ApplicationContextRunner contextRunner() {
        List<String> addresses = nodes.stream().map(node -> node.host() + ":" + node.port()).toList();
        return new ApplicationContextRunner().withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.cluster.nodes=" + String.join(",", addresses), "spring.data.redis.timeout=2s",
                        "redis-lock.watchdog-timeout=1s");
    }

    @Test
    void aReleaseOnOneNodeWakesAWaiterWhateverNodeItsConnectionIsOn() {
        contextRunner().withPropertyValues("redis-lock.watchdog-timeout=30s").run(context -> {
            for (String key : keysOnEveryMaster()) {
                Waiters.assertAReleaseWakesAWaiter(context, key);
            }
        });
    }

    /**
     * A '}' without a hash tag before it leaves Redis hashing the whole lock name, so the lock's helper
     * keys and channel must land in that slot too, or every script that touches both fails (CROSSSLOT).
     */
    @Test
    void aKeyWithAClosingBraceButNoHashTagIsTakenWaitedForAndReleasedOnACluster() {
        contextRunner().withPropertyValues("redis-lock.watchdog-timeout=30s").run(context -> {
            for (String key : List.of("stock}42", "{}order}7", "a{b")) {
                Waiters.assertAReleaseWakesAWaiter(context, key);
                assertThat(context.getBean(Locker.class).isLocked(key)).as("'%s' free again", key).isFalse();
            }
        });
    }

    @Test
    void theWatchdogRenewsLocksOnEveryMasterInOneScriptCallPerSlot() {
        // A long timeout keeps the scheduled tick away, so the ticks counted are ours.
        contextRunner().withPropertyValues("redis-lock.watchdog-timeout=30s").run(context -> {
            Locker locker = context.getBean(Locker.class);
            List<String> keys = keysOnEveryMaster();
            keys.forEach(locker::lock);
            RedisLocker redisLocker = context.getBean(RedisLocker.class);
            Internals.renewNow(redisLocker); // the first tick also loads the script on each master (NOSCRIPT, then EVAL)
            long before = scriptCalls();
            Internals.renewNow(redisLocker);
            assertThat(scriptCalls() - before).as("renewal script calls for %d locks in %d slots", keys.size(), keys.size()).isEqualTo(keys.size());
            keys.forEach(locker::unlock);
            assertThat(keys.stream().noneMatch(locker::isLocked)).isTrue();
        });
    }

    @Test
    void locksOnEveryMasterOutliveThreeWatchdogTimeouts() {
        contextRunner().run(context -> {
            Locker locker = context.getBean(Locker.class);
            List<String> keys = keysOnEveryMaster();
            keys.forEach(locker::lock);
            await().pollInSameThread().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> keys.stream().allMatch(locker::isHeldByCurrentThread));
            assertThat(context.getBean(RedisLocker.class).watchdogState().consecutiveFailures()).isZero();
            keys.forEach(locker::unlock);
        });
    }

    @Test
    void onJedisAReleaseWakesAWaiterAndTheWatchdogRenewsLocksOnEveryMaster() {
        contextRunner().withPropertyValues("spring.data.redis.client-type=jedis").run(context -> {
            assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
            Locker locker = context.getBean(Locker.class);
            List<String> keys = keysOnEveryMaster();
            RedisLocker redisLocker = context.getBean(RedisLocker.class);
            for (String key : keys) {
                locker.lock(key);
                CompletableFuture<Boolean> waiter = Waiters.waitTakeAndRelease(locker, key);
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> redisLocker.waiterCount() == 1);
                locker.unlock(key);
                assertThat(waiter.get(15, TimeUnit.SECONDS)).as("the waiter for '%s' got it after the release", key).isTrue();
            }
            keys.forEach(locker::lock);
            await().pollInSameThread().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(6)).until(() -> keys.stream().allMatch(locker::isHeldByCurrentThread));
            assertThat(redisLocker.watchdogState().consecutiveFailures()).isZero();
            keys.forEach(locker::unlock);
            assertThat(keys.stream().noneMatch(locker::isLocked)).isTrue();
        });
    }

    @Test
    void aBlockingHoldDrawsItsFencingTokenAtTheFirstAskOnTheMasterOfItsKey() {
        contextRunner().run(context -> {
            Locker locker = context.getBean(Locker.class);
            for (String key : keysOnEveryMaster()) {
                locker.lock(key);
                long token = locker.fencingToken(key);
                assertThat(token).as("token of '%s'", key).isPositive().isEqualTo(locker.fencingToken(key));
                locker.unlock(key);
                locker.lock(key);
                assertThat(locker.fencingToken(key)).as("the next hold of '%s'", key).isGreaterThan(token);
                locker.unlock(key);
            }
        });
    }

    @Test
    void theAsyncLockerTakesHandsOnAndReleasesLocksOnEveryMasterLeavingNoKey() {
        contextRunner().withPropertyValues("redis-lock.watchdog-timeout=30s").run(context -> {
            try (RedisAsyncLocker async = new RedisAsyncLocker(context.getBean(RedisLocker.class))) {
                List<String> keys = keysOnEveryMaster(4);
                List<LockHandle> holders = joinAll(keys.stream().map(key -> async.acquire(key, Duration.ZERO, null)).toList());
                assertThat(keys).allMatch(ClusterTest::existsOnItsMaster);

                List<CompletableFuture<LockHandle>> waiting = keys.stream().map(key -> async.acquire(key, Duration.ofSeconds(10), null)).toList();
                await().atMost(Duration.ofSeconds(5)).until(() -> keys.stream().allMatch(key -> onItsMaster(key, "LLEN", queueOf(key)) == 1));
                assertThat(waiting).noneMatch(CompletableFuture::isDone);

                joinAll(holders.stream().map(async::release).toList());
                List<LockHandle> handedTo = joinAll(waiting);
                for (int i = 0; i < keys.size(); i++) {
                    assertThat(handedTo.get(i).fencingToken()).as("token handed on with %s", keys.get(i)).isGreaterThan(holders.get(i).fencingToken());
                }
                joinAll(handedTo.stream().map(async::release).toList());
                for (String key : keys) {
                    List<String> written = Internals.plainLockKeys("lock:", key);
                    assertThat(onItsMaster(key, Stream.concat(Stream.of("EXISTS"), written.stream()).toArray(String[]::new)))
                            .as("keys %s left on the master of %s", written, key).isZero();
                }
            }
        });
    }

    private static <T> List<T> joinAll(List<? extends CompletionStage<T>> stages) throws Exception {
        List<T> results = new ArrayList<>();
        for (CompletionStage<T> stage : stages) {
            results.add(stage.toCompletableFuture().get(10, TimeUnit.SECONDS));
        }
        return results;
    }

    private static String queueOf(String key) {
        return Internals.plainLockKeys("lock:", key).get(1);
    }

    private static long onItsMaster(String key, String... command) {
        return (Long) nodes.get(masterOf(key)).command(command);
    }

    /**
     * A renewal tick sends every batch at once and then waits for the paused master's answer (up to a
     * third of the watchdog timeout); the unlock of a lock on a healthy master must not wait for it.
     */
    @Test
    @Order(Integer.MAX_VALUE - 1)
    void anUnlockOnAHealthyMasterDoesNotWaitForARenewalStuckOnAHangingOne() {
        // A tick waits up to 5 s (15 s / 3) for the paused master; its locks outlive the pause.
        contextRunner().withPropertyValues("redis-lock.watchdog-timeout=15s", "spring.data.redis.timeout=10s").run(context -> {
            Locker locker = context.getBean(Locker.class);
            RedisLocker redisLocker = context.getBean(RedisLocker.class);
            List<String> keys = keysOnEveryMaster(1);
            String onHealthy = keys.stream().filter(key -> masterOf(key) == 1).findFirst().orElseThrow();
            keys.forEach(locker::lock);
            locker.unlock(onHealthy); // the first release asks every master whether it knows SPUBLISH
            locker.lock(onHealthy);
            Internals.renewNow(redisLocker); // loads the renewal script on every master
            RedisServerProcess hanging = nodes.get(0);
            RedisServerProcess healthy = nodes.get(1);
            long renewalsOnHealthy = healthy.commandCount("evalsha");
            hanging.pause();
            CompletableFuture<Void> tick;
            try {
                tick = CompletableFuture.runAsync(() -> Internals.renewNow(redisLocker));
                // The healthy master ran its batch: the tick now waits for the paused one.
                await().atMost(Duration.ofSeconds(5)).until(() -> healthy.commandCount("evalsha") > renewalsOnHealthy);

                locker.unlock(onHealthy);

                assertThat(tick).as("renewal tick still waiting for the paused master when the unlock on a healthy one returned").isNotDone();
            } finally {
                hanging.resume();
            }
            tick.handle((done, failed) -> null).get(15, TimeUnit.SECONDS);
            keys.stream().filter(key -> !key.equals(onHealthy)).forEach(locker::unlock);
            assertThat(existsOnItsMaster(onHealthy)).isFalse();
        });
    }

    @Test
    @Order(Integer.MAX_VALUE) // last: the paused master may take the others a moment to trust again
    void aHangingMasterDoesNotStopRenewalOfTheLocksOnTheOthers() {
        // The command timeout is far above the watchdog timeout: only the renewal's own bound can save the healthy locks.
        contextRunner().withPropertyValues("spring.data.redis.timeout=10s").run(context -> {
            Locker locker = context.getBean(Locker.class);
            List<String> keys = keysOnEveryMaster(8);
            keys.forEach(locker::lock);
            List<String> onHealthyMasters = keys.stream().filter(key -> masterOf(key) != 0).toList();
            RedisServerProcess hanging = nodes.get(0);
            hanging.pause();
            long pausedAt = System.nanoTime();
            WatchdogState watchdog = context.getBean(RedisLocker.class).watchdogState();
            int failedTicksWhileHanging;
            try {
                await().pollInSameThread().pollDelay(Duration.ofMillis(2500)).atMost(Duration.ofSeconds(5))
                        .until(() -> onHealthyMasters.stream().allMatch(key -> existsOnItsMaster(key)));
                // Read before the resume: a tick that meets the resumed master finds its locks expired, stops
                // renewing them and succeeds, which sets the count back to 0.
                failedTicksWhileHanging = watchdog.consecutiveFailures();
            } finally {
                hanging.resume();
            }
            long pausedMillis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
            assertThat(failedTicksWhileHanging).as("ticks that could not renew the paused master's locks").isPositive();
            results.add("| Cluster master hanging while other masters' locks are held | `kill -STOP` of 1 of 3 masters for " + pausedMillis
                    + " ms (watchdog timeout 1 s, command timeout 10 s), " + keys.size() + " watchdog locks spread over the masters | "
                    + onHealthyMasters.size() + " of " + onHealthyMasters.size() + " locks on the healthy masters still held | none lost | pass |");
            for (String key : keys) {
                try {
                    locker.unlock(key);
                } catch (RuntimeException lostOnThePausedMaster) {
                    // its lease ran out while the master was paused: expected for those keys only
                    assertThat(masterOf(key)).as("lock lost on a healthy master: %s", key).isZero();
                }
            }
        });
    }

    private static void report() {
        if (!results.isEmpty()) {
            ReliabilityReport.write("cluster-shard", ReliabilityReport.runLine() + "\n\n| scenario | done | measured | bound | result |\n"
                    + "|---|---|---|---|---|\n" + String.join("\n", results));
        }
    }

    static int masterOf(String key) {
        return ClusterSlotHashUtil.calculateSlot("lock:" + key) * 3 / 16384;
    }

    static boolean existsOnItsMaster(String key) {
        return Long.valueOf(1).equals(nodes.get(masterOf(key)).command("EXISTS", "lock:" + key));
    }

    /** {@code perMaster} lock keys on each master, each in a slot of its own. */
    static List<String> keysOnEveryMaster(int perMaster) {
        List<String> keys = new ArrayList<>();
        int[] counts = new int[3];
        for (int i = 0; keys.size() < 3 * perMaster; i++) {
            String key = "shard-" + i;
            if (counts[masterOf(key)] < perMaster) {
                counts[masterOf(key)]++;
                keys.add(key);
            }
        }
        return keys;
    }

    /** One lock key per master, chosen by the slot its Redis key hashes to. */
    static List<String> keysOnEveryMaster() {
        List<String> keys = new ArrayList<>();
        Set<Integer> masters = new HashSet<>();
        for (int i = 0; keys.size() < 3; i++) {
            String key = "cluster-" + i;
            int master = ClusterSlotHashUtil.calculateSlot("lock:" + key) * 3 / 16384;
            if (masters.add(master)) {
                keys.add(key);
            }
        }
        return keys;
    }

    static long scriptCalls() {
        return nodes.stream().mapToLong(node -> node.commandCount("evalsha") + node.commandCount("eval")).sum();
    }
}
