package io.github.redislock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.core.LockerFixture;
import io.github.redislock.core.RedisAsyncLocker;
import io.github.redislock.testsupport.RedisServerProcess;
import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.RedisCallback;

/**
 * An {@link io.github.redislock.AsyncLocker} keeps many script calls in flight at once: no thread of its
 * own waits for a Redis reply, so uncontended acquisitions and releases of different keys issued
 * together share their round trips instead of taking turns on its {@value RedisAsyncLocker#DEFAULT_THREADS}
 * threads.
 *
 * <p>The instance's traffic goes through a {@link FaultProxy} that delays it {@value #DELAY_MILLIS} ms each
 * way, so one round trip takes at least {@value #ROUND_TRIP_MILLIS} ms. Calls each awaited on one of the
 * two threads would need {@value #CALLS} / 2 round trips one after the other ({@value #SERIAL_MILLIS} ms
 * at the very least); calls in flight together need about one. The bound, half of the serial minimum,
 * leaves a loaded machine several round trips of slack either way.
 */
class AsyncRoundTripsTest {

    private static final int CALLS = 16;
    private static final long DELAY_MILLIS = 200;
    private static final long ROUND_TRIP_MILLIS = 2 * DELAY_MILLIS;
    private static final long SERIAL_MILLIS = CALLS / RedisAsyncLocker.DEFAULT_THREADS * ROUND_TRIP_MILLIS;
    private static final Duration BOUND = Duration.ofMillis(SERIAL_MILLIS / 2);

    private final RedisServerProcess redis = TestRedis.shared();
    private FaultProxy proxy;
    private LockerFixture instance;
    private final List<String> keys = new ArrayList<>();

    @BeforeEach
    void connect() {
        proxy = new FaultProxy(redis.port());
        instance = LockerFixture.connect("127.0.0.1", proxy.port(), Duration.ofSeconds(10), Duration.ofSeconds(10));
        String run = UUID.randomUUID().toString();
        for (int i = 0; i < CALLS; i++) {
            keys.add("async-round-trips-" + run + "-" + i);
        }
        LockHandle warmUp = instance.async.acquire(keys.get(0), Duration.ZERO, null).join(); // its connection is open before traffic slows down
        instance.async.release(warmUp).join();
    }

    @AfterEach
    void close() {
        proxy.heal();
        instance.close();
        proxy.close();
    }

    @Test
    void acquisitionsOfDifferentKeysAwaitTheirRepliesTogether() throws Exception {
        proxy.delay(DELAY_MILLIS);
        long start = System.nanoTime();
        List<CompletableFuture<LockHandle>> acquisitions = new ArrayList<>();
        for (String key : keys) {
            acquisitions.add(instance.async.acquire(key, Duration.ZERO, null));
        }
        List<LockHandle> handles = new ArrayList<>();
        for (CompletableFuture<LockHandle> acquisition : acquisitions) {
            handles.add(acquisition.get(30, TimeUnit.SECONDS));
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(instance.locker.heldLockCount()).as("locks held").isEqualTo(CALLS);
        assertThat(took).as("%d uncontended acquisitions through a %d ms round trip", CALLS, ROUND_TRIP_MILLIS).isLessThan(BOUND);
        releaseAll(handles);
    }

    @Test
    void releasesOfDifferentKeysAwaitTheirRepliesTogether() throws Exception {
        List<LockHandle> handles = new ArrayList<>();
        for (String key : keys) {
            handles.add(instance.async.acquire(key, Duration.ZERO, null).get(10, TimeUnit.SECONDS));
        }
        proxy.delay(DELAY_MILLIS);
        long start = System.nanoTime();
        releaseAll(handles);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).as("%d releases through a %d ms round trip", CALLS, ROUND_TRIP_MILLIS).isLessThan(BOUND);
        assertThat(instance.locker.heldLockCount()).as("locks held after the releases").isZero();
        assertThat(instance.locker.watchdogState().watchedCount()).as("locks renewed after the releases").isZero();
        proxy.heal();
        for (String key : keys) {
            assertThat(instance.locker.isLocked(key)).as("lock %s in Redis", key).isFalse();
        }
    }

    @Test
    void afterRedisLostItsScriptsTheCallsLoadThemAgain() throws Exception {
        instance.redis.execute((RedisCallback<Void>) connection -> {
            connection.scriptingCommands().scriptFlush();
            return null;
        });
        LockHandle handle = instance.async.acquire(keys.get(1), Duration.ZERO, null).get(10, TimeUnit.SECONDS);
        assertThat(instance.locker.isLocked(keys.get(1))).as("locked after EVALSHA found no script").isTrue();

        instance.redis.execute((RedisCallback<Void>) connection -> {
            connection.scriptingCommands().scriptFlush();
            return null;
        });
        instance.async.release(handle).get(10, TimeUnit.SECONDS);
        assertThat(instance.locker.isLocked(keys.get(1))).as("locked after the release found no script").isFalse();
        assertThat(instance.locker.heldLockCount()).isZero();
    }

    private void releaseAll(List<LockHandle> handles) throws Exception {
        List<CompletableFuture<Void>> releases = new ArrayList<>();
        for (LockHandle handle : handles) {
            releases.add(instance.async.release(handle));
        }
        for (CompletableFuture<Void> release : releases) {
            release.get(30, TimeUnit.SECONDS);
        }
    }
}
