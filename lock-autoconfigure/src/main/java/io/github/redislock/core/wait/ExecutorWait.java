package io.github.redislock.core.wait;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.redislock.LockNameScope;

/**
 * A {@link LockWait} that holds no thread: its steps run on the async locker's executor whenever
 * something happened (a reply, a wake-up, a hand-off, its timer, a stop), never two at once: signals
 * that arrive while one runs fold into one more run after it. A try goes out on Lettuce's asynchronous
 * API, and its reply only signals the wait from the event loop that read it; the next step settles it
 * here, so that nothing that may wait (the watchdog's lock, an observer's code) runs on the event loop.
 */
public final class ExecutorWait extends LockWait {

    private final ScheduledExecutorService executor;
    /** The metrics name of the caller's {@link LockNameScope}, which the steps on other threads take along. */
    private final String name = LockNameScope.current();
    /** Signals not yet handled; the step that takes the count from 0 runs them all. */
    private final AtomicInteger signals = new AtomicInteger();
    /** Step threads only. */
    private ScheduledFuture<?> timer;

    public ExecutorWait(WaitHost locker, ScheduledExecutorService executor, LockAttempt attempt, Supplier<String> what, long waitNanos,
                 Supplier<CompletableFuture<Void>> giveBack) {
        super(locker, attempt, what, waitNanos, giveBack);
        this.executor = executor;
    }

    @Override
    public void signal() {
        if (signals.getAndIncrement() == 0) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException e) {
                // The locker has closed and stopped its threads: no step will run, and nothing is in flight
                // (its close waited for that), so the wait ends here rather than never.
                endWithoutSteps(new IllegalStateException(
                        "AsyncLocker is closed (its application context has shut down) while waiting for " + what.get()));
            }
        }
    }

    private void drain() {
        inScope(() -> {
            int pending = 1;
            do {
                step();
                pending = signals.addAndGet(-pending);
            } while (pending != 0);
        });
    }

    @Override
    void wakeAfter(long nanos) {
        cancelTimer();
        timer = executor.schedule(this::signal, nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    @Override
    void onStepThread(Runnable work) {
        try {
            executor.execute(() -> inScope(work));
        } catch (RejectedExecutionException e) {
            inScope(work); // the locker has closed: finishing here is all that is left
        }
    }

    /** Runs work of this wait in the caller's {@link LockNameScope}. */
    private void inScope(Runnable work) {
        String previousName = LockNameScope.enter(name);
        try {
            work.run();
        } finally {
            LockNameScope.exit(previousName);
        }
    }
}
