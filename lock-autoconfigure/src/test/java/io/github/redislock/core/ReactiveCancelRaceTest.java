package io.github.redislock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import io.github.redislock.AsyncLocker;
import io.github.redislock.LockHandle;

import org.junit.jupiter.api.Test;

import reactor.core.Disposable;

/**
 * The race a cancellation runs against a grant: the subscriber of an acquisition's Mono cancels just as
 * the acquisition completes, too late to cancel its future. The handle then reaches nobody, and its
 * lock must be released all the same: nobody else can, and the watchdog would renew it for ever.
 *
 * <p>The race is staged, not waited for: the acquisition's future completes with its handle at the very
 * moment the Mono tries to cancel it. What the adapter does with that handle is all this tests, so the
 * async locker under it is a recording stand-in; the real locker's side (a grant after a cancellation
 * is given back) is {@code AsyncCancellationTest}'s.
 */
class ReactiveCancelRaceTest {

    @Test
    void aHandleGrantedAsItsSubscriberCancelsIsReleased() {
        RecordingAsyncLocker async = new RecordingAsyncLocker();
        Disposable subscription = new RedisReactiveLocker(async).acquire("stock:1", Duration.ofSeconds(5), null).subscribe();

        subscription.dispose();

        assertThat(async.granted).as("handles granted").hasSize(1);
        assertThat(async.released).as("handles released").containsExactlyElementsOf(async.granted);
    }

    /** Its acquisitions complete with a new handle when they are cancelled: the grant that wins the race. */
    private static final class RecordingAsyncLocker implements AsyncLocker {
        final List<LockHandle> granted = new CopyOnWriteArrayList<>();
        final List<LockHandle> released = new CopyOnWriteArrayList<>();

        @Override
        public CompletionStage<LockHandle> acquire(String key, Duration wait, Duration lease) {
            return new CompletableFuture<>() {
                @Override
                public boolean cancel(boolean mayInterruptIfRunning) {
                    LockHandle handle = new TestHandle(key);
                    granted.add(handle);
                    complete(handle); // the grant lands first
                    return super.cancel(mayInterruptIfRunning);
                }
            };
        }

        @Override
        public CompletionStage<LockHandle> acquire(LockHandle handle, Duration wait, Duration lease) {
            return acquire(handle.key(), wait, lease);
        }

        @Override
        public CompletionStage<Void> release(LockHandle handle) {
            released.add(handle);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> release(LockHandle handle, Duration holdAtLeast) {
            return release(handle);
        }

        @Override
        public <T> CompletionStage<T> withLock(String key, Duration wait, Function<LockHandle, ? extends CompletionStage<T>> work) {
            throw new UnsupportedOperationException("not used by the adapter's acquire");
        }
    }

    private record TestHandle(String key) implements LockHandle {
        @Override
        public String id() {
            return "test-" + System.identityHashCode(this);
        }

        @Override
        public long fencingToken() {
            return 1;
        }
    }
}
