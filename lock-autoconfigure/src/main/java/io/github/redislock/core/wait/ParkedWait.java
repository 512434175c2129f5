package io.github.redislock.core.wait;

import io.github.redislock.core.connection.CallerConnections;
import io.github.redislock.core.pubsub.Waiting;
import io.github.redislock.core.script.ScriptTransport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * A {@link LockWait} whose steps run on the thread that asked the blocking Locker, parked between them
 * until a signal or its timer: a wake-up or hand-off costs no hop to another thread.
 */
public final class ParkedWait extends LockWait {

    private static final long NO_TIMER = Long.MAX_VALUE;

    private volatile Thread waiter;
    private volatile boolean signalled;
    /** What completed elsewhere and runs at the next step: the withdrawal's reply, at most one, as the wait ends. */
    private volatile Runnable handedIn;
    // The timer, waiting thread only: it fires timerNanos after timerSetAt (a System.nanoTime()); NO_TIMER = none.
    private long timerSetAt;
    private long timerNanos = NO_TIMER;

    public ParkedWait(WaitHost locker, LockAttempt attempt, Supplier<String> what, long waitNanos, Supplier<CompletableFuture<Void>> giveBack) {
        super(locker, attempt, what, waitNanos, giveBack);
    }

    /** @return whether the lock is held; {@code interruptible}: whether an interrupt ends the wait, else it is kept for the caller */
    public boolean await(boolean interruptible) throws InterruptedException {
        if (interruptible && Thread.interrupted()) { // as java.util.concurrent's locks: an interrupt comes first, even when the lock is free
            throw new InterruptedException("Interrupted before trying to take " + what.get());
        }
        waiter = Thread.currentThread();
        boolean interrupted = false;
        boolean marked = CallerConnections.callerWaits(true);
        try {
            begin();
            interrupted = steps(interruptible);
        } finally {
            CallerConnections.callerWaits(marked);
        }
        if (interrupted) { // kept for the caller (steps throw nothing)
            Thread.currentThread().interrupt();
        }
        try {
            return outcome.join();
        } catch (RuntimeException e) {
            if (ScriptTransport.unwrap(e) instanceof InterruptedException interrupt) {
                throw interrupt;
            }
            throw ScriptTransport.unchecked(e);
        }
    }

    /** The steps until the outcome, on this thread, which may send on a connection of its own ({@link CallerConnections}); returns whether an interrupt was kept. */
    private boolean steps(boolean interruptible) {
        boolean interrupted = false;
        while (!outcome.isDone()) {
            if (!signalled) { // a signal already given is taken without looking at the interrupt flag
                try {
                    park();
                } catch (InterruptedException e) {
                    interrupted |= interrupt(interruptible, e);
                }
            }
            signalled = false; // signals given meanwhile fold into this step
            Runnable work = handedIn;
            if (work != null) {
                handedIn = null;
                work.run();
            }
            if (!outcome.isDone()) {
                step();
                if (interruptible && !outcome.isDone() && Thread.interrupted()) { // came while the step read a reply on this thread
                    interrupt(true, new InterruptedException());
                }
            }
        }
        return interrupted;
    }

    /** An interrupt ends an interruptible wait at its next step (a try in flight settled first), else it is kept: returns whether kept. */
    private boolean interrupt(boolean interruptible, InterruptedException e) {
        if (!interruptible) {
            return true;
        }
        InterruptedException named = new InterruptedException("Interrupted while waiting for " + what.get());
        named.initCause(e);
        stop(named);
        return false;
    }

    private void park() throws InterruptedException {
        Waiting waiting = this.waiting;
        if (waiting != null) {
            waiting.parked(true);
        }
        try {
            while (!signalled) {
                if (timerNanos == NO_TIMER) {
                    LockSupport.park(this);
                } else {
                    long left = timerNanos - (System.nanoTime() - timerSetAt);
                    if (left <= 0) {
                        timerNanos = NO_TIMER; // the timer fired
                        return;
                    }
                    LockSupport.parkNanos(this, left);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            if (waiting != null) {
                waiting.parked(false);
            }
        }
    }

    @Override
    public void signal() {
        signalled = true;
        Thread parked = waiter;
        if (parked != null && parked != Thread.currentThread()) { // a permit left over would cut a later park short
            LockSupport.unpark(parked);
        }
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
        handedIn = work;
        signal();
    }
}
