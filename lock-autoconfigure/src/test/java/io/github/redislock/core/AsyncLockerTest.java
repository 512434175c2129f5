package io.github.redislock.core;


import io.github.redislock.LockHandle;
import io.github.redislock.LockAcquisitionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The locks that wait without a thread are the blocking Locker's locks: a handle and a thread on one
 * key exclude each other, queue in one hand-off order and draw from one fencing-token counter; and
 * whatever ends an acquisition or a {@code withLock} (completion, error, cancellation) leaves nothing held.
 */
class AsyncLockerTest extends TwoInstances {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Test
    void aHandleAndAThreadExcludeEachOtherOnOneKey() throws Exception {
        first.locker.lock(key);
        assertThatThrownBy(() -> second.async.acquire(key, Duration.ZERO, null).get(5, TimeUnit.SECONDS))
                .cause().isInstanceOf(LockAcquisitionException.class).hasMessageContaining(key);
        assertThatThrownBy(() -> first.async.acquire(key, Duration.ZERO, null).get(5, TimeUnit.SECONDS))
                .as("another owner of the same instance").cause().isInstanceOf(LockAcquisitionException.class);
        first.locker.unlock(key);

        LockHandle handle = second.async.acquire(key, Duration.ZERO, Duration.ofSeconds(3)).get(5, TimeUnit.SECONDS);
        assertThat(first.redis.<String, String>opsForHash().keys(keys.name())).containsExactly(second.locker.getClientId() + ":~" + handle.id());
        assertThat(threads.submit(() -> first.locker.tryLock(key)).get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(threads.submit(() -> second.locker.tryLock(key)).get(5, TimeUnit.SECONDS)).as("a thread of the handle's instance").isFalse();

        second.async.release(handle).get(5, TimeUnit.SECONDS);
        assertThat(first.locker.isLocked(key)).isFalse();
        assertThat(second.locker.heldLockCount()).isZero();
    }

    @Test
    void reEntryIsByTheSameHandleAndEachAcquisitionNeedsItsRelease() throws Exception {
        LockHandle handle = first.async.acquire(key, WAIT, null).get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> first.async.acquire(key, Duration.ZERO, null).get(5, TimeUnit.SECONDS))
                .as("a new handle is another owner").cause().isInstanceOf(LockAcquisitionException.class);
        assertThat(first.async.acquire(handle, Duration.ZERO, null).get(5, TimeUnit.SECONDS)).isSameAs(handle);
        long token = handle.fencingToken();

        first.async.release(handle).get(5, TimeUnit.SECONDS);
        assertThat(first.locker.isLocked(key)).as("one of two holds released").isTrue();
        assertThat(handle.fencingToken()).isEqualTo(token);
        first.async.release(handle).get(5, TimeUnit.SECONDS);
        assertThat(first.locker.isLocked(key)).isFalse();
        assertThatThrownBy(() -> first.async.release(handle).get(5, TimeUnit.SECONDS))
                .cause().isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(key);
    }

    @Test
    void badArgumentsAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> first.async.acquire(key, Duration.ofSeconds(-1), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key);
        assertThatThrownBy(() -> first.async.acquire(key, WAIT, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key);
        assertThatThrownBy(() -> first.async.acquire(" ", WAIT, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> first.reactive.acquire(key, WAIT, Duration.ofNanos(1)).block(Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key);
    }

    @Test
    void fencingTokensOfThreadsAndHandlesComeFromOneCounter() throws Exception {
        first.locker.lock(key);
        long byThread = first.locker.fencingToken(key);
        CompletableFuture<LockHandle> queued = second.async.acquire(key, WAIT, null);
        await().atMost(Duration.ofSeconds(5)).until(this::queueLength, length -> length == 1);
        first.locker.unlock(key); // hands the lock to the queued handle, with a token drawn in the release
        LockHandle handle = queued.get(5, TimeUnit.SECONDS);
        long byHandOff = handle.fencingToken();
        second.async.release(handle).get(5, TimeUnit.SECONDS);
        LockHandle direct = first.async.acquire(key, Duration.ZERO, null).get(5, TimeUnit.SECONDS);
        long byHandle = direct.fencingToken();
        first.async.release(direct).get(5, TimeUnit.SECONDS);
        long byThreadAgain = threads.submit(() -> {
            second.locker.lock(key);
            try {
                return second.locker.fencingToken(key);
            } finally {
                second.locker.unlock(key);
            }
        }).get(5, TimeUnit.SECONDS);

        assertThat(List.of(byThread, byHandOff, byHandle, byThreadAgain)).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void threadsAndHandlesOfBothInstancesAreServedInTheOrderTheyQueued() throws Exception {
        first.locker.lock(key);
        List<String> served = new CopyOnWriteArrayList<>();
        List<Future<?>> waiters = new ArrayList<>();
        List<String> expected = List.of("handle-1", "thread-2", "handle-2", "thread-1", "handle-1b");
        for (String name : expected) {
            LockerFixture instance = name.endsWith("1") || name.endsWith("1b") ? first : second;
            if (name.startsWith("thread")) {
                waiters.add(threads.submit(() -> {
                    instance.locker.lock(key);
                    served.add(name);
                    instance.locker.unlock(key);
                    return null;
                }));
            } else {
                waiters.add(instance.async.withLock(key, WAIT, handle -> {
                    served.add(name);
                    return CompletableFuture.completedFuture(null);
                }));
            }
            int queued = waiters.size();
            await().atMost(Duration.ofSeconds(5)).until(this::queueLength, length -> length == queued);
        }

        first.locker.unlock(key);
        for (Future<?> waiter : waiters) {
            waiter.get(10, TimeUnit.SECONDS);
        }
        assertThat(served).containsExactlyElementsOf(expected);
        assertNothingLeft();
    }

    @Test
    void withLockReleasesWhenTheWorkCompletesFailsOrIsCancelled() throws Exception {
        assertThat(first.async.withLock(key, WAIT, handle -> CompletableFuture.completedFuture(handle.fencingToken()))
                .get(5, TimeUnit.SECONDS)).isPositive();
        assertNothingLeft();

        CompletableFuture<Object> failed = first.async.withLock(key, WAIT, handle -> CompletableFuture.failedFuture(new IllegalStateException("boom")));
        assertThatThrownBy(() -> failed.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertNothingLeft();
        assertThatThrownBy(() -> first.async.withLock(key, WAIT, handle -> {
            throw new IllegalArgumentException("thrown by the work");
        }).get(5, TimeUnit.SECONDS)).cause().hasMessage("thrown by the work");
        assertNothingLeft();

        assertThat(first.reactive.withLock(key, WAIT, Mono.fromSupplier(() -> first.locker.isLocked(key))).block(WAIT)).isTrue();
        assertNothingLeft();
        assertThatThrownBy(() -> first.reactive.withLock(key, WAIT, Mono.error(new IllegalStateException("reactive boom"))).block(WAIT))
                .hasMessage("reactive boom");
        assertNothingLeft();

        CountDownLatch working = new CountDownLatch(1);
        Disposable running = first.reactive.withLock(key, WAIT, Mono.never().doOnSubscribe(subscription -> working.countDown())).subscribe();
        assertThat(working.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(first.locker.isLocked(key)).isTrue();
        running.dispose();
        await().atMost(Duration.ofSeconds(5)).until(() -> !first.locker.isLocked(key));
        assertNothingLeft();
    }

    @Test
    void cancellingAQueuedWaitWithdrawsItsPlaceAndTheNextReleaseGoesToTheNextWaiter() throws Exception {
        first.locker.lock(key);
        Disposable cancelled = second.reactive.acquire(key, WAIT, null).subscribe();
        await().atMost(Duration.ofSeconds(5)).until(this::queueLength, length -> length == 1);
        CompletableFuture<LockHandle> cancelledFuture = first.async.acquire(key, WAIT, null);
        await().atMost(Duration.ofSeconds(5)).until(this::queueLength, length -> length == 2);
        CompletableFuture<LockHandle> next = second.async.acquire(key, WAIT, null);
        await().atMost(Duration.ofSeconds(5)).until(this::queueLength, length -> length == 3);

        cancelled.dispose();
        cancelledFuture.cancel(false);
        await().atMost(Duration.ofSeconds(5)).until(this::queueLength, length -> length == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> first.async.waitingCount() + second.async.waitingCount() == 1);

        first.locker.unlock(key);
        LockHandle handle = next.get(5, TimeUnit.SECONDS);
        assertThat(first.redis.<String, String>opsForHash().keys(keys.name())).containsExactly(second.locker.getClientId() + ":~" + handle.id());
        second.async.release(handle).get(5, TimeUnit.SECONDS);
        assertNothingLeft();
    }

    @Test
    void theOnlyQueuedWaitCancelledLeavesAnEmptyQueueAndTheReleaseFreesTheLock() throws Exception {
        first.locker.lock(key);
        Disposable waiting = second.reactive.acquire(key, WAIT, null).subscribe();
        await().atMost(Duration.ofSeconds(5)).until(this::queueLength, length -> length == 1);

        waiting.dispose();
        await().atMost(Duration.ofSeconds(5)).until(() -> second.async.waitingCount() == 0);
        assertThat(queueLength()).isZero();
        assertThat(first.redis.opsForZSet().size(keys.waitDeadlines())).as("queue deadlines").isZero();

        first.locker.unlock(key);
        assertThat(first.locker.isLocked(key)).as("handed to nobody").isFalse();
        assertNothingLeft();
    }

    @Test
    void aWaitThatRunsOutWithdrawsItsPlaceAndFailsNamingTheKey() throws Exception {
        first.locker.lock(key);
        CompletableFuture<LockHandle> waiting = second.async.acquire(key, Duration.ofMillis(300), null);
        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(LockAcquisitionException.class).hasMessageContaining(key);
        assertThat(queueLength()).isZero();
        first.locker.unlock(key);
        assertNothingLeft();
    }

    @Test
    void closingTheAsyncLockerEndsItsWaitsAndWithdrawsTheirPlaces() throws Exception {
        first.locker.lock(key);
        CompletableFuture<LockHandle> waiting = second.async.acquire(key, null, null);
        await().atMost(Duration.ofSeconds(5)).until(this::queueLength, length -> length == 1);
        second.async.close();
        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).cause().isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(queueLength()).isZero();
        assertThatThrownBy(() -> second.async.acquire(key, WAIT, null)).isInstanceOf(IllegalStateException.class).hasMessageContaining(key);
        first.locker.unlock(key);
        assertNothingLeft();
    }

    private long queueLength() {
        Long length = first.redis.opsForList().size(keys.waitQueue());
        return length == null ? 0 : length;
    }

    private void assertNothingLeft() throws ExecutionException, InterruptedException {
        await().atMost(Duration.ofSeconds(5)).until(() -> first.locker.heldLockCount() + second.locker.heldLockCount() == 0);
        assertThat(first.redis.keys(keys.name() + "*")).as("keys of lock " + key).isEmpty();
        assertThat(first.redis.keys(LockerFixture.PREFIX + "{" + keys.name() + "}*")).as("keys in the lock's hash slot").isEmpty();
    }
}
