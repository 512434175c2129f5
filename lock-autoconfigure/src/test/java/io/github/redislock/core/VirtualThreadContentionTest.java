package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * 1,000 virtual threads across two instances contend for one key: every one gets the lock once, the
 * read-then-write counter inside comes out exact, and no virtual thread is pinned to its carrier while
 * it waits (JFR's {@code jdk.VirtualThreadPinned}). Compiled for Java 17, so virtual threads are made
 * through the JDK 21 factory looked up at run time; on a JDK without them the test is disabled, and
 * {@code .ci/run} runs it on a JDK 21+ when the machine has one.
 */
@EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need JDK 21+; .ci/run runs this on one when present")
class VirtualThreadContentionTest extends TwoInstances {

    static final int THREADS = 1_000;

    /** The JDK's own default threshold for reporting a pinned virtual thread. */
    static final Duration PINNING_THRESHOLD = Duration.ofMillis(20);

    @Test
    void aThousandVirtualThreadsOnTwoInstancesEachTakeTheLockOnceWithAnExactCounterAndNoPinning() throws Exception {
        String counter = "counter:" + key;
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger granted = new AtomicInteger();
        Path events = Files.createTempFile("virtual-thread-pinning", ".jfr");
        ExecutorService virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        try (Recording pinning = new Recording()) {
            warmUp(virtualThreads);
            pinning.enable("jdk.VirtualThreadPinned").withStackTrace().withThreshold(PINNING_THRESHOLD);
            pinning.start();
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                LockerFixture instance = i % 2 == 0 ? first : second;
                done.add(virtualThreads.submit(() -> {
                    start.await();
                    if (!instance.locker.tryLock(key, 60, -1, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("gave up waiting for " + key);
                    }
                    try {
                        String read = instance.redis.opsForValue().get(counter);
                        instance.redis.opsForValue().set(counter, Integer.toString(read == null ? 1 : Integer.parseInt(read) + 1));
                        granted.incrementAndGet();
                    } finally {
                        instance.locker.unlock(key);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> each : done) {
                each.get(90, TimeUnit.SECONDS);
            }
            pinning.stop();
            pinning.dump(events);
        } finally {
            virtualThreads.shutdownNow();
        }
        List<String> pinned = RecordingFile.readAllEvents(events).stream().map(VirtualThreadContentionTest::describe).toList();
        Files.delete(events);
        assertThat(granted).hasValue(THREADS);
        assertThat(first.redis.opsForValue().get(counter)).isEqualTo(Integer.toString(THREADS));
        assertThat(pinned).as("virtual threads pinned to their carrier while locking").isEmpty();
        first.redis.delete(counter);
    }

    /**
     * A contended round per instance from virtual threads before the recording starts: the first calls
     * open the command and pub/sub connections and load classes, and class loading pins a virtual
     * thread on every JDK, whatever the code it runs.
     */
    private void warmUp(ExecutorService virtualThreads) throws Exception {
        for (LockerFixture holder : List.of(first, second)) {
            LockerFixture waiter = holder == first ? second : first;
            holder.locker.lock(key);
            Future<Boolean> waited = virtualThreads.submit(() -> {
                boolean got = waiter.locker.tryLock(key, 30, -1, TimeUnit.SECONDS);
                waiter.locker.unlock(key);
                return got;
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> waiter.subscriptions.waiterCount() == 1);
            holder.locker.unlock(key);
            assertThat(waited.get(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static String describe(RecordedEvent pinning) {
        return pinning.getDuration() + " " + (pinning.getStackTrace() == null ? "" : pinning.getStackTrace().getFrames().subList(0,
                Math.min(8, pinning.getStackTrace().getFrames().size())));
    }
}
