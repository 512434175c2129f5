package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockRedisException;
import io.github.redislock.testsupport.RedisServerProcess;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Redis at its {@code maxmemory} with {@code noeviction}: every command that could grow memory is refused with
 * {@code OOM command not allowed}. A script is refused at its first such write, before it changed anything, so an
 * acquisition or a wait gets a {@link LockRedisException} naming the key and leaves nothing half-written (no queue place
 * without the 'waiters' mark, or the reverse); releases, hand-offs and renewals, whose first writes free or expire, still
 * go through. Here {@code maxmemory 1} makes Redis out of memory at once, on a private server.
 */
class OutOfMemoryTest {

    @RegisterExtension
    static final PrivateRedisInstances instances = new PrivateRedisInstances("--maxmemory-policy", "noeviction");
    private static final RedisServerProcess redis = instances.redis;

    private final String key = "out-of-memory-" + UUID.randomUUID();

    @AfterEach
    void memoryBack() {
        redis.command("CONFIG", "SET", "maxmemory", "0");
    }

    @ParameterizedTest(name = "jedis={0}")
    @ValueSource(booleans = {false, true})
    void anAcquisitionRefusedForMemoryNamesTheKeyAndWritesNothing(boolean jedis) {
        instances.connect(jedis, key);
        outOfMemory();

        assertThat(catchThrowable(() -> instances.instance.locker.tryLock(key))).isInstanceOf(LockRedisException.class)
                .hasMessageContaining(instances.instance.redisKey(key)).hasMessageContaining("OOM");

        assertThat(instances.instance.locker.heldLockCount()).isZero();
        assertThat(keysOfTheLock()).isEmpty();
    }

    @ParameterizedTest(name = "jedis={0}")
    @ValueSource(booleans = {false, true})
    void aWaitRefusedForMemoryLeavesNeitherAQueuePlaceNorTheWaitersMark(boolean jedis) {
        instances.connect(jedis, key);
        instances.other.locker.lock(key);
        outOfMemory();

        assertThat(catchThrowable(() -> instances.instance.locker.tryLock(key, 2, -1, TimeUnit.SECONDS))).isInstanceOf(LockRedisException.class)
                .hasMessageContaining(instances.instance.redisKey(key)).hasMessageContaining("OOM");

        assertThat(keysOfTheLock()).as("only the lock hash: no queue, no deadlines").containsExactly(instances.instance.redisKey(key));
        assertThat(redis.command("HKEYS", instances.instance.redisKey(key))).asList().as("the lock's fields: the holder's alone, no 'waiters'")
                .containsExactly(instances.other.locker.currentOwner());
        instances.other.locker.unlock(key); // under the same memory pressure
        assertThat(keysOfTheLock()).isEmpty();
        assertThat(instances.instance.locker.heldLockCount()).isZero();
    }

    @ParameterizedTest(name = "jedis={0}")
    @ValueSource(booleans = {false, true})
    void aQueuedWaitIsHandedTheLockWhileRedisIsOutOfMemory(boolean jedis) throws Exception {
        instances.connect(jedis, key);
        instances.other.locker.lock(key);
        CompletableFuture<Boolean> waiter = Waiters.waitTakeAndRelease(instances.instance.locker, key);
        await().atMost(Duration.ofSeconds(5)).until(() -> Long.valueOf(1).equals(redis.command("LLEN", PrivateRedisInstances.queue(key))));
        outOfMemory();

        instances.other.locker.unlock(key); // hands the lock to the queued wait: its writes start with LPOP, which frees

        assertThat(waiter.get(10, TimeUnit.SECONDS)).as("the queued wait got the lock").isTrue();
        assertThat(keysOfTheLock()).isEmpty();
        assertThat(instances.instance.lostEvents).isEmpty();
    }

    private static void outOfMemory() {
        redis.command("CONFIG", "SET", "maxmemory", "1");
        assertThat(catchThrowable(() -> redis.command("SET", "probe", "1"))).as("Redis refuses writes for memory").hasMessageContaining("OOM");
    }

    private List<Object> keysOfTheLock() {
        @SuppressWarnings("unchecked")
        List<Object> keys = (List<Object>) redis.command("KEYS", "*" + key + "*");
        return keys;
    }
}
