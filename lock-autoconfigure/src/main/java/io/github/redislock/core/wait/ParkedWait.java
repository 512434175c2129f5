package io.github.redislock.core.wait;

import io.github.redislock.core.hold.CallerRuns;
import io.github.redislock.core.pubsub.Waiting;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A {@link LockWait} whose steps run on the thread that asked the blocking {@link io.github.redislock.Locker}
 * for the lock: it runs a step, parks until a signal or its timer (a reply, a wake-up, work handed back
 * from another thread), and runs the next, so a wake-up or hand-off costs no hop to another thread.
 */
public final class ParkedWait extends LockWait {

    private static final long NO_TIMER = Long.MAX_VALUE;

    private final Semaphore signals = new Semaphore(0);
    /** Work that completed elsewhere (a withdrawal's reply) and runs on the waiting thread at its next step. */
    private final Queue<Runnable> handedIn = new ConcurrentLinkedQueue<>();
    // The timer, waiting thread only: it fires timerNanos after timerSetAt (a System.nanoTime()); NO_TIMER = none.
    private long timerSetAt;
    private long timerNanos = NO_TIMER;

    public ParkedWait(WaitHost locker, LockAttempt attempt, Supplier<String> what, long waitNanos, Supplier<CompletableFuture<Void>> giveBack) {
        super(locker, attempt, what, waitNanos, giveBack);
    }

    /**
     * Waits on the calling thread until the wait has settled.
     *
     * @param interruptible whether an interrupt ends the wait (with {@link InterruptedException}); else
     *                      the interrupt is kept for the caller and the wait goes on
     * @return whether the lock is held
     */
    public boolean await(boolean interruptible) throws InterruptedException {
        if (interruptible && Thread.interrupted()) { // as java.util.concurrent's locks: an interrupt comes first, even when the lock is free
            throw new InterruptedException("Interrupted before trying to take " + what.get());
        }
        boolean interrupted = false;
        begin();
        try {
            while (!outcome.isDone()) {
                if (!signals.tryAcquire()) { // a signal already given is taken without looking at the interrupt flag
                    try {
                        park();
                    } catch (InterruptedException e) {
                        if (interruptible) {
                            InterruptedException named = new InterruptedException("Interrupted while waiting for " + what.get());
                            named.initCause(e);
                            stop(named);
                        } else {
                            interrupted = true;
                        }
                    }
                }
                signals.drainPermits(); // signals given meanwhile fold into this step
                for (Runnable work; (work = handedIn.poll()) != null; ) {
                    work.run();
                }
                if (!outcome.isDone()) {
                    step();
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            return outcome.join();
        } catch (RuntimeException e) {
            if (unwrap(e) instanceof InterruptedException interrupt) {
                throw interrupt;
            }
            throw CallerRuns.unchecked(e);
        }
    }

    private void park() throws InterruptedException {
        Waiting waiting = waiting();
        if (waiting != null) {
            waiting.parked(true);
        }
        try {
            if (timerNanos == NO_TIMER) {
                signals.acquire();
            } else if (!signals.tryAcquire(timerNanos - (System.nanoTime() - timerSetAt), TimeUnit.NANOSECONDS)) {
                timerNanos = NO_TIMER; // the timer fired
            }
        } finally {
            if (waiting != null) {
                waiting.parked(false);
            }
        }
    }

    @Override
    public void signal() {
        signals.release();
    }

    @Override
    void wakeAfter(long nanos) {
        timerSetAt = System.nanoTime();
        timerNanos = nanos;
    }

    @Override
    void cancelTimer() {
        timerNanos = NO_TIMER;
    }

    @Override
    void onStepThread(Runnable work) {
        handedIn.add(work);
        signal();
    }
}
