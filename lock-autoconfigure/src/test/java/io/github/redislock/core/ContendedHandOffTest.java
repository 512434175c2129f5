package io.github.redislock.core;

import io.github.redislock.LockHandle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Under contention every release hands the lock on at once: eight waiters of two instances take one
 * key in turn, and no acquisition may come later than {@link LockerFixture#WOKEN_WITHIN} after the
 * release before it. The instances run with a 30 s watchdog ({@link LockerFixture#SLOW_RETRIES}), so
 * a hand-off or wake-up that is missed shows as a stall of 3.3 s (the queue-place refresh) or more,
 * not as a quick retry.
 */
class ContendedHandOffTest {

    private static final int THREADS_PER_INSTANCE = 4;
    private static final int ACQUISITIONS = 5000;

    private LockerFixture first;
    private LockerFixture second;
    private final String key = "ContendedHandOffTest-" + UUID.randomUUID();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final AtomicInteger acquisitions = new AtomicInteger();
    private final AtomicInteger stalls = new AtomicInteger();
    private final AtomicLong longestGapNanos = new AtomicLong();
    /** When the holder started to release (System.nanoTime()); 0 before the first release. */
    private volatile long releasingSince;

    @BeforeEach
    void start() {
        first = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), LockerFixture.SLOW_RETRIES);
        second = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), LockerFixture.SLOW_RETRIES);
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        first.close();
        second.close();
    }

    @Test
    void parkedWaitersOfTwoInstancesGetTheLockRightAfterEachRelease() throws Exception {
        takeTurns(instance -> () -> {
            while (goOn()) {
                instance.locker.lock(key);
                held();
                instance.locker.unlock(key);
            }
            return null;
        });
    }

    @Test
    void asyncWaitersOfTwoInstancesGetTheLockRightAfterEachRelease() throws Exception {
        takeTurns(instance -> () -> {
            while (goOn()) {
                LockHandle handle = instance.async.acquire(key, Duration.ofSeconds(60), null).get(60, TimeUnit.SECONDS);
                held();
                instance.async.release(handle).get(10, TimeUnit.SECONDS);
            }
            return null;
        });
    }

    private void takeTurns(Function<LockerFixture, Callable<Void>> caller) throws Exception {
        List<Future<Void>> callers = new ArrayList<>();
        for (int i = 0; i < THREADS_PER_INSTANCE; i++) {
            callers.add(threads.submit(caller.apply(first)));
            callers.add(threads.submit(caller.apply(second)));
        }
        for (Future<Void> each : callers) {
            each.get(60, TimeUnit.SECONDS);
        }
        assertThat(stalls.get())
                .as("acquisitions later than %s after the release before them (longest gap %d ms, %d acquisitions)",
                        LockerFixture.WOKEN_WITHIN, TimeUnit.NANOSECONDS.toMillis(longestGapNanos.get()), acquisitions.get())
                .isZero();
        assertThat(first.locker.isLocked(key)).isFalse();
    }

    /** Until enough acquisitions were seen, or the first stall: each stall costs seconds. */
    private boolean goOn() {
        return acquisitions.get() < ACQUISITIONS && stalls.get() == 0;
    }

    /** Under the lock: measures the gap since the release before, then starts this holder's release. */
    private void held() {
        long since = releasingSince;
        if (since != 0) {
            long gap = System.nanoTime() - since;
            longestGapNanos.accumulateAndGet(gap, Math::max);
            if (gap > LockerFixture.WOKEN_WITHIN.toNanos()) {
                stalls.incrementAndGet();
            }
        }
        acquisitions.incrementAndGet();
        releasingSince = System.nanoTime();
    }
}
