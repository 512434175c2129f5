package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One owner, two acquisitions in flight: an owner token taken on two threads at once, or one lock
 * handle acquired twice at once. Each is a re-entry of the other, so Redis must count two holds, and
 * the owner's first release must leave the lock held. Taken for two first holds, both would restart
 * the count at 1, and the first release would free the key under the second (another owner then takes
 * it while the second still believes it holds it).
 *
 * <p>The instance's traffic goes through a {@link FaultProxy} that delays it {@value #DELAY_MILLIS} ms
 * each way, so both acquisitions are surely in flight together.
 */
class OneOwnerTwoAcquisitionsTest {

    private static final long DELAY_MILLIS = 150;

    private final RedisServerProcess redis = TestRedis.shared();
    private FaultProxy proxy;
    private LockerFixture instance;
    private LockerFixture other;
    private final String key = "one-owner-" + UUID.randomUUID();

    @BeforeEach
    void connect() {
        proxy = new FaultProxy(redis.port());
        instance = LockerFixture.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(3), Duration.ofSeconds(10));
        other = LockerFixture.connect(redis.host(), redis.port(), Duration.ofSeconds(3));
        instance.locker.isLocked("warm-up"); // its connection is open before traffic slows down
    }

    @AfterEach
    void close() {
        proxy.heal();
        instance.close();
        other.close();
        proxy.close();
    }

    @Test
    void anOwnerTokenTakenOnTwoThreadsAtOnceCountsTwoHoldsAndItsFirstReleaseKeepsTheLock() throws Exception {
        String token = "job-" + UUID.randomUUID();
        proxy.delay(DELAY_MILLIS);
        CyclicBarrier together = new CyclicBarrier(2);
        CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> tryLockAs(token, together));
        CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> tryLockAs(token, together));

        assertThat(first.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(second.get(20, TimeUnit.SECONDS)).isTrue();
        proxy.heal();
        assertThat(holdsInRedis()).as("holds Redis counts for the one owner").isEqualTo(2);

        instance.locker.unlockAs(token, key);
        assertThat(other.locker.tryLock(key)).as("another owner takes the lock the token still holds once").isFalse();
        instance.locker.unlockAs(token, key);
        assertThat(other.locker.tryLock(key)).isTrue();
        other.locker.unlock(key);
    }

    @Test
    void aLockHandleAcquiredTwiceAtOnceCountsTwoHoldsAndItsFirstReleaseKeepsTheLock() throws Exception {
        LockHandle handle = instance.async.acquire(key, Duration.ZERO, null).get(10, TimeUnit.SECONDS);
        instance.async.release(handle).get(10, TimeUnit.SECONDS);
        proxy.delay(DELAY_MILLIS);

        CompletableFuture<LockHandle> first = instance.async.acquire(handle, Duration.ofSeconds(10), null);
        CompletableFuture<LockHandle> second = instance.async.acquire(handle, Duration.ofSeconds(10), null);
        first.get(20, TimeUnit.SECONDS);
        second.get(20, TimeUnit.SECONDS);
        proxy.heal();
        assertThat(holdsInRedis()).as("holds Redis counts for the one handle").isEqualTo(2);

        instance.async.release(handle).get(10, TimeUnit.SECONDS);
        assertThat(other.locker.tryLock(key)).as("another owner takes the lock the handle still holds once").isFalse();
        instance.async.release(handle).get(10, TimeUnit.SECONDS);
        assertThat(other.locker.tryLock(key)).isTrue();
        other.locker.unlock(key);
    }

    private boolean tryLockAs(String token, CyclicBarrier together) {
        try {
            together.await(10, TimeUnit.SECONDS);
            return instance.locker.tryLockAs(token, key, 10, 30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The largest hold count any owner field of the lock's hash has in Redis. */
    private long holdsInRedis() {
        return other.redis.<Object, Object>opsForHash().entries(other.redisKey(key)).entrySet().stream()
                .filter(field -> !"waiters".equals(field.getKey()))
                .mapToLong(field -> Long.parseLong((String) field.getValue())).max().orElse(0);
    }
}
