package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;
import io.github.redislock.watchdog.LockWatchdog;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The starter configured only through {@code spring.data.redis.cluster.nodes}, on a Redis Cluster of
 * three masters started as local processes and joined by the test (CLUSTER MEET, ADDSLOTS).
 */
class ClusterTest {

    static final List<RedisServerProcess> nodes = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        for (int i = 0; i < 3; i++) {
            nodes.add(TestRedis.startNew("--cluster-enabled", "yes", "--cluster-node-timeout", "2000"));
        }
        for (int i = 0; i < 3; i++) {
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = i * 16384 / 3; slot < (i + 1) * 16384 / 3; slot++) {
                addSlots.add(Integer.toString(slot));
            }
            nodes.get(i).command(addSlots.toArray(String[]::new));
        }
        for (int i = 1; i < 3; i++) {
            nodes.get(0).command("CLUSTER", "MEET", nodes.get(i).host(), Integer.toString(nodes.get(i).port()));
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> nodes.stream().allMatch(node -> String.valueOf(node.command("CLUSTER", "INFO")).contains("cluster_state:ok")));
    }

    @AfterAll
    static void stopCluster() {
        nodes.forEach(RedisServerProcess::stop);
    }

    ApplicationContextRunner contextRunner() {
        List<String> addresses = nodes.stream().map(node -> node.host() + ":" + node.port()).toList();
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisAutoConfiguration.class, RedisLockAutoConfiguration.class))
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

    @Test
    void theWatchdogRenewsLocksOnEveryMasterInOneScriptCallPerSlot() {
        // A long timeout keeps the scheduled tick away, so the ticks counted are ours.
        contextRunner().withPropertyValues("redis-lock.watchdog-timeout=30s").run(context -> {
            Locker locker = context.getBean(Locker.class);
            List<String> keys = keysOnEveryMaster();
            keys.forEach(locker::lock);
            LockWatchdog watchdog = context.getBean(LockWatchdog.class);
            watchdog.renewNow(); // the first tick also loads the script on each master (NOSCRIPT, then EVAL)
            long before = scriptCalls();
            watchdog.renewNow();
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
            assertThat(context.getBean(LockWatchdog.class).consecutiveFailures()).isZero();
            keys.forEach(locker::unlock);
        });
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
