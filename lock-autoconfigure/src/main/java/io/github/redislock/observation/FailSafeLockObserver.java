package io.github.redislock.observation;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.redislock.LockObserver;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Keeps an observer's failure out of the locks. Observers are called on the lock path (before and
 * after the Redis calls that take and release a lock), so an observer, namer or observation
 * convention that throws would otherwise fail the lock call, or leave a lock taken whose caller never
 * learns it holds it. Metrics and traces are extras: a failure is logged (the first at WARN with its
 * stack trace, the rest at DEBUG, so a failure on every call does not flood the log) and the lock
 * goes on as if nobody observed it.
 */
public final class FailSafeLockObserver implements LockObserver {

    private static final Log log = LogFactory.getLog(FailSafeLockObserver.class);

    private final LockObserver observer;
    private final AtomicBoolean warned = new AtomicBoolean();

    private FailSafeLockObserver(LockObserver observer) {
        this.observer = observer;
    }

    /** {@code observer} made fail-safe; {@link LockObserver#NONE} and one already fail-safe are returned as they are. */
    public static LockObserver of(LockObserver observer) {
        return observer == LockObserver.NONE || observer instanceof FailSafeLockObserver ? observer : new FailSafeLockObserver(observer);
    }

    @Override
    public Acquisition acquisitionStarted(ObservedLock lock) {
        return startGuarded("acquisitionStarted", lock, () -> observer.acquisitionStarted(lock));
    }

    @Override
    public Acquisition acquisitionStartedWithoutThread(ObservedLock lock) {
        return startGuarded("acquisitionStartedWithoutThread", lock, () -> observer.acquisitionStartedWithoutThread(lock));
    }

    @Override
    public void released(ObservedLock lock, long heldNanos) {
        guarded("released", lock, () -> observer.released(lock, heldNanos));
    }

    @Override
    public void renewed(int renewed, int lost) {
        guarded("renewed", null, () -> observer.renewed(renewed, lost));
    }

    @Override
    public void renewalFailed(int locks, Throwable cause) {
        guarded("renewalFailed", null, () -> observer.renewalFailed(locks, cause));
    }

    @Override
    public void lost(ObservedLock lock, boolean byWatchdog) {
        guarded("lost", lock, () -> observer.lost(lock, byWatchdog));
    }

    /** The observer's acquisition, its ending calls guarded too; {@link Acquisition#NONE} when starting it failed. */
    private Acquisition startGuarded(String event, ObservedLock lock, Supplier<Acquisition> start) {
        Acquisition acquisition;
        try {
            acquisition = start.get();
        } catch (RuntimeException e) {
            observerFailed(event, lock, e);
            return Acquisition.NONE;
        }
        if (acquisition == null || acquisition == Acquisition.NONE) {
            return Acquisition.NONE;
        }
        return new Acquisition() {
            @Override
            public void acquired() {
                guarded("acquired", lock, acquisition::acquired);
            }

            @Override
            public void timedOut() {
                guarded("timedOut", lock, acquisition::timedOut);
            }

            @Override
            public void failed(Throwable cause) {
                guarded("failed", lock, () -> acquisition.failed(cause));
            }
        };
    }

    private void guarded(String event, ObservedLock lock, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            observerFailed(event, lock, e);
        }
    }

    private void observerFailed(String event, ObservedLock lock, RuntimeException e) {
        String message = "The lock observer failed (" + observer.getClass().getName() + "." + event
                + (lock == null ? "" : " of '" + lock.redisKey() + "'") + "); the lock works on without it";
        if (warned.compareAndSet(false, true)) {
            log.warn(message + ". Later failures of this observer are logged at DEBUG", e);
        } else if (log.isDebugEnabled()) {
            log.debug(message, e);
        }
    }
}
