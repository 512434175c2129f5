package io.github.redislock.core.wait;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.redislock.LockNameScope;

/** A {@link LockWait} that holds no thread: its steps run on the async locker's executor, one at a time, never on an event loop. */
public final class ExecutorWait extends LockWait {

    private final ScheduledExecutorService executor;
    /** The caller's {@link LockNameScope}, which the steps take along. */
    private final String name = LockNameScope.current();
    /** Signals not yet handled; the step that takes the count from 0 runs them all. */
    private final AtomicInteger signals = new AtomicInteger();
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
                // The locker has closed and stopped its threads (its close waited for what was in flight): end here, not never.
                finish(false, closedWhileWaiting());
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

    private void inScope(Runnable work) {
        String previousName = LockNameScope.enter(name);
        try {
            work.run();
        } finally {
            LockNameScope.exit(previousName);
        }
    }
}
