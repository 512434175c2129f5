package io.github.redislock.core;

import io.github.redislock.LockHandle;
import io.github.redislock.Locker;
import io.github.redislock.LockAcquisitionException;
import io.github.redislock.LockRedisException;
import io.github.redislock.LockObserver;
import io.github.redislock.LockNameScope;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;


import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One acquisition of a plain lock by a {@link LockHandle}: the blocking wait of {@link RedisLocker}
 * turned inside out, so that it holds no thread between its steps, nor while Redis answers.
 *
 * <p>It uses the very attempt a blocking waiter uses ({@link RedisLocker#queuedPlainAttempt}): the same
 * acquire script, queue place, hand-off and withdrawal. What differs is what starts the next step:
 * instead of a thread parked on a semaphore, a release's wake-up or hand-off (a callback from
 * {@link ReleaseSubscriptions}), its one timer (the holder's lease end, the refresh of its queue place,
 * its deadline), a cancellation, or the reply to its acquire script schedules a step on the async
 * locker's executor. Steps of one wait never overlap: signals that arrive while one runs are folded
 * into one more run after it.
 *
 * <p>A try is sent without waiting ({@link LockAttempt.Async#send}); the reply only signals the wait,
 * on the Lettuce event-loop thread that read it, and the next step settles it on the executor: the
 * hold's registration with the watchdog, the fencing token, the observer and the caller's
 * continuations then run where they always ran, in the caller's {@link LockNameScope}, and nothing
 * that may wait (the watchdog's lock, an observer's code) ever runs on the event loop. The hop costs
 * no Redis call. While a try is in flight the wait neither ends nor tries again: a script that may
 * have taken the lock is always settled, and a cancellation that came meanwhile gives the lock back.
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
    private final LockAttempt.Async attempt;
    private final LockObserver.Acquisition observation;
    private final CompletableFuture<LockHandle> result = new CompletableFuture<>();
    private final Runnable onEnd;
    /** The async locker's release, which a closing locker waits for. */
    private final Function<LockHandle, CompletableFuture<Void>> giveBack;
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
    /** The reply to the try in flight, or answered and not yet settled; null between tries. */
    private CompletableFuture<LockCommands.Acquisition> trying;
    /** Whether the try in flight queues. */
    private boolean tryingQueues;
    private long firstTryNanos;

    /**
     * @param onEnd    called once when the wait ends, however it ends, before its result completes
     * @param giveBack releases a lock granted after the acquisition was cancelled
     */
    AsyncWait(RedisLocker locker, ScheduledExecutorService executor, Handle handle, LockKeys keys, String owner,
              long waitNanos, long leaseMillis, Runnable onEnd, Function<LockHandle, CompletableFuture<Void>> giveBack) {
        this.locker = locker;
        this.executor = executor;
        this.handle = handle;
        this.owner = owner;
        this.waitNanos = waitNanos;
        this.onEnd = onEnd;
        this.giveBack = giveBack;
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

    /** Tiny and non-blocking: it runs on event-loop threads too (a reply, a release message). */
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
        inScope(() -> {
            int pending = 1;
            do {
                try {
                    step();
                } catch (RuntimeException | Error e) {
                    end(e);
                }
                pending = signals.addAndGet(-pending);
            } while (pending != 0);
        });
    }

    /** Runs work of this wait on an executor thread in the caller's {@link LockNameScope}. */
    private void inScope(Runnable work) {
        String previousName = LockNameScope.enter(name);
        try {
            work.run();
        } finally {
            LockNameScope.exit(previousName);
        }
    }

    private void step() {
        if (ended) {
            return;
        }
        boolean answered = trying != null;
        if (answered) {
            if (!trying.isDone()) {
                return; // its reply signals again; until then the script may have taken the lock
            }
            if (!settleTry()) {
                return;
            }
        }
        RuntimeException stop = stopReason;
        if (result.isCancelled() || stop != null || locker.isClosed()) {
            end(stop != null || !locker.isClosed() ? stop
                    : new IllegalStateException("Locker is closed (its application context has shut down) while waiting for " + what));
            return;
        }
        if (blocked == null) {
            firstTryNanos = System.nanoTime();
            send(waitNanos != 0);
            return;
        }
        if (waiting == null) {
            joinAfterFirstTry();
            return;
        }
        if (!waiting.takeWakeUps() && answered) {
            sleep(); // nothing was announced while the try was in flight
            return;
        }
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
        send(true);
    }

    private void send(boolean queue) {
        tryingQueues = queue;
        CompletableFuture<LockCommands.Acquisition> reply = attempt.send(queue, executor);
        trying = reply;
        reply.whenComplete((answer, failure) -> signal());
    }

    /**
     * Settles the answered try as {@link LockAttempt#tryOnce} would have: a failed first try ends the
     * wait, a failed later one may ride out an outage.
     *
     * @return whether the wait goes on, blocked; false when it holds the lock, ended or sleeps
     */
    private boolean settleTry() {
        CompletableFuture<LockCommands.Acquisition> reply = trying;
        trying = null;
        boolean first = waiting == null;
        LockAttempt.Blocked previous = blocked;
        try {
            blocked = attempt.settle(tryingQueues, reply.join());
        } catch (CompletionException e) {
            Throwable failure = e.getCause() != null ? e.getCause() : e;
            if (!first && failure instanceof LockRedisException redisFailure && outage.rideOut(redisFailure)) {
                blocked = new LockAttempt.Blocked(previous.channel(), OutageRideOut.RETRY_AFTER_MILLIS);
                sleep();
            } else {
                end(failure);
            }
            return false;
        }
        if (!first) {
            outage.answered();
        }
        if (blocked == null) {
            acquired();
            return false;
        }
        return true;
    }

    /** The first try found the lock held: listen for its release, and try again at once unless no release can have been missed. */
    private void joinAfterFirstTry() {
        if (waitNanos == 0) {
            end(null);
            return;
        }
        waiting = locker.join(blocked.channel(), attempt.waitName(), what, this::signal);
        if (waiting.hearsEverythingSince(firstTryNanos)) {
            sleep(); // queued while the inbox was heard: a hand-off cannot have been missed
            return;
        }
        send(true); // a release before the subscription is not missed
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
        boolean cancelledMeanwhile = result.isCancelled(); // while the grant was in flight
        if (cancelledMeanwhile) {
            giveBackGranted(); // started before onEnd: a closing locker waits for it
        }
        onEnd.run();
        if (!cancelledMeanwhile && !result.complete(handle)) { // cancelled just now
            giveBackGranted();
        }
    }

    /** @param failure null when the wait ran out */
    private void end(Throwable failure) {
        if (ended) {
            return;
        }
        ended = true;
        cleanUp();
        CompletableFuture<Void> withdrawn;
        try {
            withdrawn = attempt.abandonAsync(executor); // withdraws the queue place, passing on a lock handed over meanwhile
        } catch (RuntimeException e) {
            withdrawn = CompletableFuture.failedFuture(e);
        }
        if (withdrawn.isDone()) {
            withdrawn.whenComplete((done, withdrawalFailure) -> finish(withdrawalFailure, failure)); // runs now
        } else { // the reply comes on an event loop: the result, and the caller's code with it, completes on the executor
            withdrawn.whenCompleteAsync((done, withdrawalFailure) -> inScope(() -> finish(withdrawalFailure, failure)), executor);
        }
    }

    /** Completes a wait that ended without the lock, once its queue place is withdrawn. */
    private void finish(Throwable withdrawalFailure, Throwable failure) {
        if (withdrawalFailure != null) {
            RedisLocker.withdrawalFailed(what, withdrawalFailure instanceof CompletionException && withdrawalFailure.getCause() != null
                    ? withdrawalFailure.getCause() : withdrawalFailure);
        }
        onEnd.run();
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

    /** Releases a lock granted to a cancelled acquisition, through the async locker's release. */
    private void giveBackGranted() {
        giveBack.apply(handle).whenComplete((released, failure) -> {
            if (failure != null) {
                log.warn("Could not give back " + what + ", granted after its acquisition was cancelled; it frees when its lease ends", failure);
            }
        });
    }

    private void cleanUp() {
        cancelTimer();
        if (waiting != null) {
            waiting.close();
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
