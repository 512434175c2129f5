package io.github.redislock.core;

import io.github.redislock.LockHandle;
import io.github.redislock.Locker;
import io.github.redislock.LockAcquisitionException;
import io.github.redislock.LockRedisException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockNameScope;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;


import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One acquisition of a plain lock by a {@link LockHandle}: the blocking wait of {@link RedisLocker}
 * turned inside out, so that it holds no thread between its steps.
 *
 * <p>It uses the very attempt a blocking waiter uses ({@link RedisLocker#queuedPlainAttempt}): the same
 * acquire script, queue place, hand-off and withdrawal. What differs is what starts the next step:
 * instead of a thread parked on a semaphore, a release's wake-up or hand-off (a callback from
 * {@link ReleaseSubscriptions}), its one timer (the holder's lease end, the refresh of its queue place,
 * its deadline) or a cancellation schedules a step on the async locker's executor. Steps of one wait
 * never overlap: signals that arrive while one runs are folded into one more run after it.
 *
 * <p>Cancellation is safe at every point: a cancelled wait withdraws its queue place (which passes on a
 * lock handed to it meanwhile), and a grant that lands after the cancellation is released at once.
 */
final class AsyncWait {

    private static final Log log = LogFactory.getLog(AsyncWait.class);

    private final RedisLocker locker;
    private final ScheduledExecutorService executor;
    private final Handle handle;
    private final String owner;
    private final String what;
    /** {@link Locker#WAIT_FOREVER} or 0 and more. */
    private final long waitNanos;
    private final long startNanos = System.nanoTime();
    private final LockAttempt attempt;
    private final LockObserver.Acquisition observation;
    private final CompletableFuture<LockHandle> result = new CompletableFuture<>();
    private final Runnable onEnd;
    /** The metrics name of the caller's {@link LockNameScope}, which the steps on other threads take along. */
    private final String name = LockNameScope.current();
    /** Signals not yet handled; the step that takes the count from 0 runs them all. */
    private final AtomicInteger signals = new AtomicInteger();
    /** Why the wait must stop (the locker closes); null while it may go on. */
    private volatile RuntimeException stopReason;

    // Touched by steps only, which never overlap.
    private boolean ended;
    private Waiting waiting;
    private LockAttempt.Blocked blocked;
    private ScheduledFuture<?> timer;
    private final OutageRideOut outage;
    private long expiredGrant = -1;

    /**
     * @param onEnd called once when the wait ends, however it ends
     */
    AsyncWait(RedisLocker locker, ScheduledExecutorService executor, Handle handle, LockKeys keys, String owner,
              long waitNanos, long leaseMillis, Runnable onEnd) {
        this.locker = locker;
        this.executor = executor;
        this.handle = handle;
        this.owner = owner;
        this.waitNanos = waitNanos;
        this.onEnd = onEnd;
        this.what = "'" + keys.key() + "' for lock handle " + handle.id();
        this.attempt = locker.queuedPlainAttempt(keys, owner, leaseMillis);
        this.observation = locker.observeAcquisition(keys);
        this.outage = new OutageRideOut(locker.watchdogTimeout().toNanos());
    }

    /** Starts the wait on the executor; the caller's thread never waits for Redis. */
    CompletableFuture<LockHandle> start() {
        result.whenComplete((held, failure) -> {
            if (failure instanceof CancellationException) {
                signal(); // withdraws the place, or releases what a grant in flight brings
            }
        });
        signal();
        return result;
    }

    /** Ends the wait at its next step (a closing locker); a lock granted by then is released. */
    void stop(RuntimeException reason) {
        stopReason = reason;
        signal();
    }

    private void signal() {
        if (signals.getAndIncrement() == 0) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException e) {
                // The locker closed; its close() ends every wait it knows of.
            }
        }
    }

    private void drain() {
        int pending = 1;
        String previousName = LockNameScope.enter(name);
        try {
            do {
                try {
                    step();
                } catch (RuntimeException | Error e) {
                    end(e);
                }
                pending = signals.addAndGet(-pending);
            } while (pending != 0);
        } finally {
            LockNameScope.exit(previousName);
        }
    }

    private void step() {
        if (ended) {
            return;
        }
        RuntimeException stop = stopReason;
        if (result.isCancelled() || stop != null || locker.isClosed()) {
            end(stop != null || !locker.isClosed() ? stop
                    : new IllegalStateException("Locker is closed (its application context has shut down) while waiting for " + what));
            return;
        }
        if (waiting == null) {
            if (firstTry()) {
                tryAgain();
            }
            return;
        }
        waiting.takeWakeUps();
        long granted = waiting.grantedToken();
        if (granted >= 0 && granted != expiredGrant) {
            if (attempt.handedOver(granted)) {
                acquired();
                return;
            }
            expiredGrant = granted; // its claim lease ran out; a later hand-off brings a new token
        }
        if (remainingNanos() <= 0) {
            end(outage.failure());
            return;
        }
        tryAgain();
    }

    /** @return whether to try again at once: the first try queued before the channel was surely heard */
    private boolean firstTry() {
        long firstTry = System.nanoTime();
        blocked = attempt.tryOnce(waitNanos != 0);
        if (blocked == null) {
            acquired();
            return false;
        }
        if (waitNanos == 0) {
            end(null);
            return false;
        }
        waiting = locker.join(blocked.channel(), attempt.waitName(), what, this::signal);
        if (waiting.hearsEverythingSince(firstTry)) {
            sleep(); // queued while the inbox was heard: a hand-off cannot have been missed
            return false;
        }
        return true; // a release before the subscription is not missed
    }

    private void tryAgain() {
        LockAttempt.Blocked previous = blocked;
        try {
            blocked = attempt.tryOnce(true);
        } catch (LockRedisException e) {
            if (!outage.rideOut(e)) {
                end(e);
                return;
            }
            blocked = new LockAttempt.Blocked(previous.channel(), OutageRideOut.RETRY_AFTER_MILLIS);
            sleep();
            return;
        }
        outage.answered();
        if (blocked == null) {
            acquired();
            return;
        }
        sleep();
    }

    /** Sets the one timer: the holder's lease end bounds the sleep (an expiry publishes nothing), and so does the deadline. */
    private void sleep() {
        long holderTtl = blocked.holderTtlMillis() >= 0 ? Math.max(1, blocked.holderTtlMillis()) : locker.watchdogTimeout().toMillis();
        long nanos = Math.max(0, Math.min(remainingNanos(), TimeUnit.MILLISECONDS.toNanos(holderTtl)));
        cancelTimer();
        timer = executor.schedule(this::signal, nanos, TimeUnit.NANOSECONDS);
    }

    private long remainingNanos() {
        return waitNanos == Locker.WAIT_FOREVER ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - startNanos);
    }

    private void acquired() {
        ended = true;
        cleanUp();
        observation.acquired();
        handle.fencingToken(locker.heldToken(handle.key(), owner));
        if (!result.complete(handle)) { // cancelled while the grant was in flight: give back what it brought
            releaseGranted();
        }
    }

    /** @param failure null when the wait ran out */
    private void end(Throwable failure) {
        if (ended) {
            return;
        }
        ended = true;
        cleanUp();
        RedisLocker.abandon(attempt, what); // withdraws the queue place, passing on a lock handed over meanwhile
        if (result.isCancelled()) {
            observation.failed(new CancellationException("Cancelled while waiting for " + what));
        } else if (failure == null) {
            observation.timedOut();
            result.completeExceptionally(new LockAcquisitionException(handle.key(), java.time.Duration.ofNanos(waitNanos)));
        } else {
            observation.failed(failure);
            result.completeExceptionally(failure);
        }
    }

    private void releaseGranted() {
        try {
            locker.unlock(LockKind.PLAIN, handle.key(), owner);
        } catch (RuntimeException e) {
            log.warn("Could not give back " + what + ", granted after its acquisition was cancelled; it frees when its lease ends", e);
        }
    }

    private void cleanUp() {
        cancelTimer();
        if (waiting != null) {
            waiting.close();
        }
        onEnd.run();
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
