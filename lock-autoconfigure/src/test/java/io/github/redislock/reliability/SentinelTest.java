package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostEvent;
import io.github.redislock.AsyncLocker;
import io.github.redislock.LockHandle;
import io.github.redislock.Locker;
import io.github.redislock.autoconfigure.RedisLockAsyncAutoConfiguration;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * The starter configured only through {@code spring.data.redis.sentinel.*} (on Lettuce, and on Jedis for
 * locking and waiting), on one master, one
 * replica and three Sentinels started as local processes ({@link SentinelTopology}); then the master is killed and the
 * Sentinels fail over to the replica. The watchdog timeout (30 s) is longer than the failover, so a
 * lock that reached the replica before the kill is still there, and still renewed, on the new master.
 * A lock acquired but not yet replicated when the master dies is lost (replication is asynchronous);
 * its holder is told by LockLostEvent and LockLostException, as after a restart.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SentinelTest {

    @RegisterExtension
    static final SentinelTopology topology = new SentinelTopology();

    ApplicationContextRunner contextRunner() {
        return new ApplicationContextRunner().withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                .withPropertyValues(topology.springProperties());
    }

    @Test
    @Order(1)
    void locksWaitAndReleaseThroughSentinel() {
        contextRunner().run(context -> Waiters.assertAReleaseWakesAWaiter(context, "sentinel"));
    }

    @Test
    @Order(1)
    void locksWaitAndHandOffThroughSentinelOnJedis() {
        contextRunner().withConfiguration(AutoConfigurations.of(RedisLockAsyncAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.client-type=jedis").run(context -> {
            assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
            Waiters.assertAReleaseWakesAWaiter(context, "sentinel-jedis");
            Locker locker = context.getBean(Locker.class);
            locker.lock("sentinel-jedis-async");
            AsyncLocker async = context.getBean(AsyncLocker.class);
            CompletableFuture<LockHandle> waiting = async.acquire("sentinel-jedis-async", Duration.ofSeconds(10), null).toCompletableFuture();
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> context.getBean(RedisLocker.class).waiterCount() == 1);
            locker.unlock("sentinel-jedis-async"); // hands the lock to the queued asynchronous wait
            LockHandle handle = waiting.get(5, TimeUnit.SECONDS);
            assertThat(locker.isLocked("sentinel-jedis-async")).isTrue();
            async.release(handle).toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(locker.isLocked("sentinel-jedis-async")).isFalse();
        });
    }

    @Test
    @Order(2)
    void aLockReplicatedBeforeTheMasterDiesSurvivesTheFailoverAndLockingContinuesOnTheNewMaster() {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        contextRunner().withBean(ApplicationListener.class, () -> (ApplicationListener<LockLostEvent>) lost::add).run(context -> {
            Locker locker = context.getBean(Locker.class);
            locker.lock("held-across-failover");
            await().atMost(Duration.ofSeconds(5)).until(() -> Long.valueOf(1).equals(topology.replica.command("EXISTS", "lock:held-across-failover")));

            long killed = System.nanoTime();
            topology.master.kill();
            await().atMost(SentinelTopology.FAILOVER).pollInterval(Duration.ofMillis(50)).until(() -> tryLockAndUnlock(locker, "after-failover"));
            long unavailableMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);

            assertThat(topology.replica.info("replication").get("role")).isEqualTo("master");
            locker.unlock("held-across-failover"); // throws LockLostException if the failover lost it
            assertThat(lost).isEmpty();
            ReliabilityReport.write("sentinel", ReliabilityReport.runLine() + "\n\n"
                    + "| injected | lock operations failing (from the kill to the first success) | lock replicated before the kill |\n|---|---|---|\n"
                    + "| `kill -9` of the master; Sentinels (down-after 1 s, quorum 2) promote the replica | " + unavailableMillis
                    + " ms | kept: renewed and released on the new master, no LockLostEvent |");
        });
    }

    @Test
    @Order(3)
    void aLockAcquiredWithReplicaSyncSurvivesAFailoverRightAfterItsAcquisition() {
        RedisServerProcess oldMaster = topology.master;
        RedisServerProcess newMaster = topology.replica;
        topology.rejoinAsReplica(oldMaster, newMaster);
        contextRunner().withPropertyValues("redis-lock.replica-sync=900ms").run(context -> { // under the 1 s command timeout
            Locker locker = context.getBean(Locker.class);
            locker.lock("synced"); // returns only once a replica has it
            newMaster.kill();
            // (no new lock with replica-sync can succeed now: the promoted replica has no replica of its own)
            await().atMost(SentinelTopology.FAILOVER).pollInterval(Duration.ofMillis(50)).until(() -> SentinelTopology.answers(() -> locker.isLocked("synced")));

            assertThat(oldMaster.info("replication").get("role")).isEqualTo("master");
            locker.unlock("synced"); // throws LockLostException if the failover lost it
        });
    }


    private static boolean tryLockAndUnlock(Locker locker, String key) {
        return SentinelTopology.answers(() -> {
            if (locker.tryLock(key)) {
                locker.unlock(key);
                return true;
            }
            return false;
        });
    }
}
