package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.LockRedisException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisReadWriteLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An operator's view and force-release work on a read-write lock as on a plain one (the actuator tests cover the plain lock). */
class LockAdminTest extends TwoInstances {

    LockAdmin admin;

    @BeforeEach
    void startAdmin() {
        admin = new LockAdmin(first.commands, LockerFixture.PREFIX);
    }

    @Test
    void aForceReleasedReadWriteLockIsFreeLeasesAndAllAndItsWaitingWriterGetsIn() throws Exception {
        RedisReadWriteLock lock = first.locker.getReadWriteLock(key);
        assertThat(lock.readLock().tryLock(0, 30, TimeUnit.SECONDS)).isTrue();
        String reader = first.locker.getClientId() + ":" + Thread.currentThread().getId();
        assertThat(admin.state(key).holds()).containsExactly(Map.entry(reader + ":r", 1L));
        Future<Boolean> writer = threads.submit(() -> {
            RedisLock write = second.locker.getReadWriteLock(key).writeLock();
            boolean taken = write.tryLock(20, -1, TimeUnit.SECONDS);
            if (taken) {
                write.unlock();
            }
            return taken;
        });
        await().until(() -> second.subscriptions.waiterCount() == 1);

        long forcedAt = System.nanoTime();
        assertThat(admin.forceRelease(key)).containsExactly(Map.entry(reader + ":r", 1L));

        assertThat(writer.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - forcedAt)).as("ms until the writer got in (the reader's lease: 30 s)")
                .isLessThan(3000);
        assertThat(first.redis.hasKey(LockKeys.of(LockerFixture.PREFIX, key).leases())).as("lease set left").isFalse();
    }

    @Test
    void aLockKeptForItsShortestHoldIsForceReleasedNamingItsFormerOwner() {
        first.locker.lock(key);
        first.locker.unlock(key, java.time.Duration.ofSeconds(30));
        assertThat(second.locker.tryLock(key)).as("kept for its shortest hold").isFalse();

        assertThat(admin.forceRelease(key)).hasSize(1).containsValue(0L);
        assertThat(second.locker.tryLock(key)).isTrue();
        second.locker.unlock(key);
    }

    @Test
    void aHashUnderThePrefixThatIsNoLockIsRefusedAndLeftAsItIs() {
        String redisKey = LockerFixture.PREFIX + key;
        first.redis.opsForHash().put(redisKey, "name", "alice");
        try {
            assertThatThrownBy(() -> admin.forceRelease(key)).isInstanceOf(LockRedisException.class)
                    .hasMessageContaining(redisKey).hasMessageContaining("not a lock");
            assertThat(first.redis.opsForHash().entries(redisKey)).as("the hash after the refused force-release")
                    .containsExactly(Map.entry("name", "alice"));
        } finally {
            first.redis.delete(redisKey);
        }
    }
}
