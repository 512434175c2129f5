package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;

import io.github.redislock.testsupport.TestRedis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Ten thousand reactive acquisitions of one key, all subscribed at once from two application
 * instances, cost the JVM a few threads, not one per waiter: each is served exactly once, alone in the
 * critical section, and the same holds when blocking callers compete for the key with them.
 *
 * <p>The watchdog timeout is long (60 s) so that 10,000 queued waiters refresh their places only every
 * 6.7 s; the test is about threads and exclusion, not about refresh traffic.
 *
 * <p>The critical section has no pause between its read and its write ({@link #SECTION_PAUSE}): the
 * detector's usual 2 ms would make each test here wait out 20 s of pauses. Both instances live in this
 * JVM, so the detector's in-memory count of the callers inside sees any overlap however short the
 * section is, and the Redis counter still loses an increment to two callers inside together;
 * {@link #withoutTheLockTheUnpausedSectionSeesCallersOverlap()} shows that the section still catches
 * callers that are not excluded.
 */
class ReactiveContentionTest {

    private static final int ACQUISITIONS = 10_000;
    /** Threads the JVM may add to its baseline: the async lockers' and whatever Lettuce and Reactor start on first use. */
    private static final int THREAD_ALLOWANCE = 16;
    private static final Duration WAIT = Duration.ofSeconds(120);
    /** No pause: the section is two round trips to Redis long, and every caller is in this JVM (see the class javadoc). */
    private static final Duration SECTION_PAUSE = Duration.ZERO;

    private final ThreadMXBean threadBean = ManagementFactory.getThreadMXBean();
    private LockerFixture first;
    private LockerFixture second;
    private String key;
    private OverlapDetector detector;

    @BeforeEach
    void startInstances() {
        first = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(60));
        second = LockerFixture.connect(TestRedis.shared().host(), TestRedis.shared().port(), Duration.ofSeconds(60));
        key = "reactive-contention-" + UUID.randomUUID();
        detector = new OverlapDetector(first.redis, key + ":counter", SECTION_PAUSE);
        for (LockerFixture instance : List.of(first, second)) { // the connections and the pub/sub link exist before the baseline
            instance.locker.lock(key);
            instance.locker.unlock(key);
        }
    }

    @AfterEach
    void stopInstances() {
        detector.close();
        first.close();
        second.close();
    }

    @Test
    void tenThousandReactiveAcquisitionsFromTwoInstancesCostAFewThreads() {
        AtomicIntegerArray served = new AtomicIntegerArray(ACQUISITIONS);
        int baseline = startCountingThreads();

        Flux.range(0, ACQUISITIONS)
                .flatMap(i -> (i % 2 == 0 ? first : second).reactive.withLock(key, WAIT, Mono.fromRunnable(() -> {
                    detector.pass();
                    served.incrementAndGet(i);
                })), ACQUISITIONS)
                .blockLast(WAIT);

        int peak = threadBean.getPeakThreadCount();
        System.out.printf("reactive contention: %d acquisitions, live threads baseline %d, peak %d%n", ACQUISITIONS, baseline, peak);
        assertEveryOneServedOnceAlone(served, ACQUISITIONS);
        assertThat(peak - baseline).as("threads over the baseline of %d while %d reactive acquisitions waited", baseline, ACQUISITIONS)
                .isLessThanOrEqualTo(THREAD_ALLOWANCE);
        assertNothingLeft();
    }

    @Test
    void blockingAndReactiveCallersMixedAreEachServedOnceAlone() throws Exception {
        int blockingThreads = 16;
        int perThread = 50;
        int reactive = ACQUISITIONS - blockingThreads * perThread;
        AtomicIntegerArray served = new AtomicIntegerArray(ACQUISITIONS);
        ExecutorService threads = Executors.newFixedThreadPool(blockingThreads);
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch ready = new CountDownLatch(blockingThreads);
        List<Future<?>> blocking = new ArrayList<>();
        try {
            for (int t = 0; t < blockingThreads; t++) {
                LockerFixture instance = t % 2 == 0 ? first : second;
                int firstIndex = reactive + t * perThread;
                blocking.add(threads.submit(() -> {
                    ready.countDown();
                    go.await();
                    for (int i = firstIndex; i < firstIndex + perThread; i++) {
                        instance.locker.lock(key);
                        try {
                            detector.pass();
                            served.incrementAndGet(i);
                        } finally {
                            instance.locker.unlock(key);
                        }
                    }
                    return null;
                }));
            }
            assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
            int baseline = startCountingThreads(); // the blocking callers' threads are in it: they are a thread each by nature

            Flux<Void> reactiveCallers = Flux.range(0, reactive)
                    .flatMap(i -> (i % 2 == 0 ? first : second).reactive.withLock(key, WAIT, Mono.fromRunnable(() -> {
                        detector.pass();
                        served.incrementAndGet(i);
                    })), reactive);
            go.countDown();
            reactiveCallers.blockLast(WAIT);
            for (Future<?> caller : blocking) {
                caller.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }

            int peak = threadBean.getPeakThreadCount();
            System.out.printf("mixed contention: %d reactive and %d blocking acquisitions, live threads baseline %d, peak %d%n",
                    reactive, blockingThreads * perThread, baseline, peak);
            assertEveryOneServedOnceAlone(served, ACQUISITIONS);
            assertThat(peak - baseline).as("threads over the baseline of %d", baseline).isLessThanOrEqualTo(THREAD_ALLOWANCE);
            assertNothingLeft();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void withoutTheLockTheUnpausedSectionSeesCallersOverlap() throws Exception {
        int callers = 4;
        int passesEach = 250;
        ExecutorService threads = Executors.newFixedThreadPool(callers);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> unlocked = new ArrayList<>();
        try {
            for (int t = 0; t < callers; t++) {
                unlocked.add(threads.submit(() -> {
                    go.await();
                    for (int i = 0; i < passesEach; i++) {
                        detector.pass();
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> caller : unlocked) {
                caller.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            detector.assertPassesOverlapped();
        } finally {
            threads.shutdownNow();
        }
    }

    /** The live thread count now, from which the peak is counted again. */
    private int startCountingThreads() {
        threadBean.resetPeakThreadCount();
        return threadBean.getThreadCount();
    }

    private void assertEveryOneServedOnceAlone(AtomicIntegerArray served, int expected) {
        List<Integer> notOnce = new ArrayList<>();
        for (int i = 0; i < expected; i++) {
            if (served.get(i) != 1) {
                notOnce.add(i);
            }
        }
        assertThat(notOnce).as("acquisitions not served exactly once").isEmpty();
        detector.assertEveryPassWasAlone(expected);
    }

    private void assertNothingLeft() {
        assertThat(first.locker.heldLockCount() + second.locker.heldLockCount()).isZero();
        assertThat(first.async.waitingCount() + second.async.waitingCount()).isZero();
        assertThat(first.redis.keys(LockerFixture.PREFIX + "*" + key + "*")).as("keys of the lock").isEmpty();
    }
}
