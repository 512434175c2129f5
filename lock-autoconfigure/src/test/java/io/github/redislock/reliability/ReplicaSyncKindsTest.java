package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockRedisException;
import io.github.redislock.Locker;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisMultiLock;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.fixtures.BootLine;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

/**
 * {@code redis-lock.replica-sync} on the kinds of lock beside the plain one ({@code SentinelTest} covers the plain lock): a
 * fair lock, a read-write lock's read and write locks and a multi-lock each return only once a replica has them, so they
 * survive a failover right after their acquisition; and when no replica acknowledges, each fails with
 * {@code LockRedisException} and leaves no key and no hold behind. Topology as in {@code SentinelTest}: one master, one
 * replica, three Sentinels (down-after 1 s, quorum 2; {@link SentinelTopology}); the failover is the one the Sentinels run after a {@code kill -9}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicaSyncKindsTest {

    @RegisterExtension
    static final SentinelTopology topology = new SentinelTopology();

    @Test
    @Order(1)
    void eachKindAcquiredWhileNoReplicaAcknowledgesFailsAndLeavesNoKeyBehind() throws Exception {
        RedisServerProcess alone = TestRedis.startNew(); // no replica: WAIT answers 0 after its timeout
        try (LockerFixture fixture = LockerFixture.connect(alone.host(), alone.port(), Duration.ofSeconds(2), Duration.ofSeconds(1),
                Duration.ofMillis(100))) {
            RedisMultiLock multi = fixture.locker.getMultiLock("unsynced-multi-a", "unsynced-multi-b");
            List<RedisLock> kinds = List.of(fixture.locker.getFairLock("unsynced-fair"),
                    fixture.locker.getReadWriteLock("unsynced-rw-r").readLock(), fixture.locker.getReadWriteLock("unsynced-rw-w").writeLock());
            for (RedisLock lock : kinds) {
                assertThatThrownBy(() -> lock.tryLock(0, -1, TimeUnit.MILLISECONDS)).as(lock.getKey())
                        .isInstanceOf(LockRedisException.class).hasMessageContaining("no replica acknowledged it").hasMessageContaining("released again");
                assertThat(lock.getHoldCount()).as(lock.getKey()).isZero();
            }
            assertThatThrownBy(() -> multi.tryLock(0, -1, TimeUnit.MILLISECONDS)).as("multi-lock")
                    .isInstanceOf(LockRedisException.class).hasMessageContaining("no replica acknowledged it");
            assertThat(fixture.locker.heldLockCount()).as("holds the instance keeps").isZero();
            assertThat(fixture.redis.keys("lock:unsynced-*")).as("lock keys left in Redis").isEmpty();
        } finally {
            alone.stop();
        }
    }

    @Test
    @Order(2)
    void aFairAReadWriteAndAMultiLockAcquiredWithReplicaSyncSurviveAFailoverRightAfterTheirAcquisition() {
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        new ApplicationContextRunner().withConfiguration(BootLine.redisAnd(RedisLockAutoConfiguration.class))
                .withPropertyValues(topology.springProperties()).withPropertyValues("redis-lock.replica-sync=900ms")
                .withBean(ApplicationListener.class, () -> (ApplicationListener<LockLostEvent>) lost::add).run(context -> {
            Locker locker = context.getBean(Locker.class);
            RedisLock fair = locker.getFairLock("synced-fair");
            RedisLock read = locker.getReadWriteLock("synced-rw-r").readLock();
            RedisLock write = locker.getReadWriteLock("synced-rw-w").writeLock();
            RedisMultiLock multi = locker.getMultiLock("synced-multi-a", "synced-multi-b");
            fair.lock(); // each returns only once a replica has it
            read.lock();
            write.lock();
            multi.lock();
            topology.master.kill();
            await().atMost(SentinelTopology.FAILOVER).pollInterval(Duration.ofMillis(50)).until(() -> "master".equals(topology.replica.info("replication").get("role")));
            await().atMost(SentinelTopology.FAILOVER).pollInterval(Duration.ofMillis(50))
                    .until(() -> SentinelTopology.answers(() -> locker.isLocked("synced-multi-b")));

            for (String key : List.of("synced-fair", "synced-rw-r", "synced-rw-w", "synced-multi-a", "synced-multi-b")) {
                assertThat(topology.replica.command("EXISTS", "lock:" + key)).as("lock:" + key + " on the promoted replica").isEqualTo(1L);
            }
            fair.unlock(); // each throws LockLostException if the failover lost it
            read.unlock();
            write.unlock();
            multi.unlock();
            assertThat(lost).isEmpty();
            assertThat(topology.replica.command("KEYS", "lock:synced-*")).as("lock keys left").isEqualTo(List.of());
        });
    }
}
