package io.github.redislock.core.wait;

import io.github.redislock.core.hold.HeldLocks;
import io.github.redislock.core.pubsub.Waiting;
import io.github.redislock.core.script.ScriptTransport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redislock.Locker;
import io.github.redislock.LockRedisException;

/**
 * The wait for a lock, any kind, any owner: the one state machine of acquisition, queueing, hand-off,
 * claim, outage ride-out and withdrawal, its steps run by {@link ParkedWait} on the calling thread or
 * by {@link ExecutorWait} on the async locker's executor.
 *
 * <p>A step runs on one thread at a time and reads what happened since the last one: the answer of
 * the try in flight, a wake-up or hand-off (from the {@link Waiting}), the one timer, a stop. While a
 * try is in flight the wait neither ends nor tries again: a script that may have taken the lock is
 * always settled, and a lock taken after a stop is given back. Its queue place is withdrawn by the
 * time the {@link #outcome} completes.
 */
public abstract class LockWait {

    /** How soon a waiter whose try failed on Redis tries again. */
    private static final long RETRY_AFTER_OUTAGE_MILLIS = 100;

    final WaitHost locker;
    private final LockAttempt attempt;
    /** The lock as messages name it, built only for a message. */
    final Supplier<String> what;
    private final long waitNanos;
    private final long startNanos = System.nanoTime();
    /** Releases what this wait took after it was told to stop. */
    private final Supplier<CompletableFuture<Void>> giveBack;
    /** True when held, false when the wait ran out; fails as the wait failed or was stopped. */
    public final CompletableFuture<Boolean> outcome = new CompletableFuture<>();
    private volatile Throwable stopReason;

    /** Set by {@link #begin()}, last: a step before it (a stop as the wait starts) does nothing. */
    private volatile OwnerTurns.Turn turn;
    // Touched by steps only, which never overlap.
    private boolean tried;
    private boolean ended;
    /** The release channel listened on now, or null; read by the thread that parks between steps. */
    Waiting waiting;
    private CompletableFuture<Waiting> joining;
    private String waitingOn;
    private LockAttempt.Blocked blocked;
    private long expiredGrant = -1;
    /** The try in flight, or answered and not yet settled. */
    private CompletableFuture<?> trying;
    private long firstTryNanos;
    /** The latest failure of a Redis outage the wait rides out, and since when; null once a try was answered. */
    private LockRedisException outage;
    private long outageSinceNanos;

    /** @param waitNanos 0 tries once, {@link Locker#WAIT_FOREVER} has no deadline */
    LockWait(WaitHost locker, LockAttempt attempt, Supplier<String> what, long waitNanos, Supplier<CompletableFuture<Void>> giveBack) {
        this.locker = locker;
        this.attempt = attempt;
        this.what = what;
        this.waitNanos = waitNanos;
        this.giveBack = giveBack;
    }

    /** Asks for a step soon; tiny and non-blocking, as it runs on event-loop threads too (a reply, a release message). */
    public abstract void signal();

    /** Asks for a step after {@code nanos} at the latest, replacing the timer set before. */
    abstract void wakeAfter(long nanos);

    abstract void cancelTimer();

    /** Runs {@code work} where steps run, for what completes on another thread (a withdrawal's reply). */
    abstract void onStepThread(Runnable work);

    /** Ends the wait at its next step; a lock taken by then is given back. The first reason stays. */
    public final void stop(Throwable reason) {
        if (stopReason == null) {
            stopReason = reason;
        }
        signal();
    }

    /** Makes the wait known to its locker and lines it up behind the owner's acquisition in flight, if any. */
    public final void begin() {
        locker.started(this);
        OwnerTurns.Turn taken = attempt.turn();
        turn = taken;
        if (outcome.isDone()) { // ended as it started: its closed locker's threads had stopped (see finish)
            taken.end();
        } else if (taken.ready().isDone()) {
            signal(); // no stage for the usual case, an owner with no acquisition in flight
        } else {
            taken.ready().whenComplete((ready, failure) -> signal());
        }
    }

    /** One step; whatever it throws ends the wait, withdrawn, with that failure (its reply taken as lost, unless the call was never sent). */
    final void step() {
        try {
            stepOnce();
        } catch (RuntimeException | Error e) {
            Throwable failure = ScriptTransport.unwrap(e);
            Throwable stop = stopReason;
            if (ended) { // settling failed half-way: the outcome must not stay pending, nor the owner's next acquisition
                finish(false, e);
            } else if (stop == null || stop == failure) {
                end(failure, !ScriptTransport.neverSent(failure));
            } else { // a wait told to stop (a closing locker refusing its queue place, say) ends for the stop's reason
                stop.addSuppressed(failure);
                end(stop, !ScriptTransport.neverSent(failure));
            }
        }
    }

    private void stepOnce() {
        if (ended || turn == null) { // a stop before begin(): the step after begin() ends the wait
            return;
        }
        boolean answered = trying != null;
        if (answered && (!trying.isDone() || !settleTry())) { // a reply on its way signals again; until then the script may have taken the lock
            return;
        }
        Throwable stop = stopReason;
        if (stop != null || locker.isClosed()) {
            end(stop != null ? stop : closedWhileWaiting(), false);
            return;
        }
        if (answered && waitNanos == 0) { // tries once
            end(null, false);
            return;
        }
        if (!tried) { // the first try waits for the owner's acquisition before this one to settle
            if (turn.ready().isDone()) {
                tried = true;
                firstTryNanos = System.nanoTime();
                send(waitNanos != 0);
            } else if (remainingNanos() <= 0) {
                end(null, false);
            } else {
                wakeAfter(remainingNanos());
            }
            return;
        }
        if (joining != null) {
            if (!joined(answered)) {
                return;
            }
        } else if (blocked.channel() == null) { // nothing announces the lock's release (a Redlock): look again after the pause it asks for
            if (answered) {
                sleep();
                return;
            }
        } else if (waiting == null || !blocked.channel().equals(waitingOn)) {
            listen();
            return;
        } else if (!waiting.takeWakeUps() && answered) {
            sleep(); // nothing was announced while the try was in flight
            return;
        }
        long granted = waiting == null ? -1 : waiting.grantedToken();
        if (granted >= 0 && granted != expiredGrant) {
            switch (attempt.handedOver(granted)) {
                case HELD -> {
                    acquired();
                    return;
                }
                case WITHDRAWN -> { // a closing locker withdrew the wait first, which passes the lock on
                    end(closedWhileWaiting(), false);
                    return;
                }
                case EXPIRED -> expiredGrant = granted; // its claim lease ran out; a later hand-off brings a new token
            }
        }
        if (remainingNanos() <= 0) {
            end(outage, false);
            return;
        }
        send(true);
    }

    private void send(boolean queue) {
        trying = ScriptTransport.started(() -> attempt.send(queue));
        trying.whenComplete((answer, failure) -> signal());
    }

    /** A failed later try rides out an outage shorter than the watchdog timeout, as its queue place does; false when held, ended or asleep. */
    private boolean settleTry() {
        CompletableFuture<?> reply = trying;
        trying = null;
        boolean first = waiting == null;
        LockAttempt.Blocked previous = blocked;
        try {
            blocked = attempt.settle(reply.join());
        } catch (RuntimeException e) {
            if (first || !(ScriptTransport.unwrap(e) instanceof LockRedisException failure) || locker.isClosed()) {
                throw e;
            }
            long now = System.nanoTime();
            outageSinceNanos = outage == null ? now : outageSinceNanos;
            outage = failure;
            if (now - outageSinceNanos >= locker.watchdogTimeout().toNanos()) {
                throw e;
            }
            blocked = new LockAttempt.Blocked(previous.channel(), RETRY_AFTER_OUTAGE_MILLIS);
            sleep(); // the next try, with no hold known, absorbs a hold this one may have taken
            return false;
        }
        outage = null;
        if (blocked == null) {
            acquired();
            return false;
        }
        return true;
    }

    /** Joins the channel of the lock in the way; the step after Redis confirmed it goes on, see {@link #joined()}. */
    private void listen() {
        if (waiting != null) {
            waiting.passOnWakeUp(); // it no longer waits for the lock it may have been woken for
            if (remainingNanos() <= 0) {
                end(null, false); // a multi-lock found another key in the way as its wait ran out
                return;
            }
            waiting.close();
            waiting = null;
        }
        joining = locker.join(blocked.channel(), attempt.waitName(), what.get(), this::signal);
        waitingOn = blocked.channel();
        sleep(); // the deadline holds while Redis confirms the channel, and the queue place is refreshed in time
        joining.whenComplete((joined, failure) -> signal());
    }

    /** Whether the step goes on to take a hand-off or try again: not when no release can have been missed and nothing came since. */
    private boolean joined(boolean answered) {
        if (!joining.isDone()) {
            if (remainingNanos() <= 0) {
                end(null, false); // ran out while the channel's master had not confirmed it
            } else if (answered) {
                sleep();
            } else {
                send(true); // woken before Redis confirmed the channel (a slow connection): the try keeps the queue place
            }
            return false;
        }
        try {
            waiting = joining.join();
            joining = null;
        } catch (RuntimeException e) {
            end(ScriptTransport.unwrap(e), false);
            return false;
        }
        // A hand-off kept by the inbox, or a wake-up, came as the join completed: the step that signal
        // asked for ran before the join was done, so it is taken here or never.
        if (attempt.waitName() != null && waiting.hearsEverythingSince(firstTryNanos) && !waiting.takeWakeUps()) {
            sleep(); // queued while the inbox was heard: a hand-off cannot have been missed
            return false;
        }
        return true; // takes the hand-off, else tries again: a release before the subscription is not missed
    }

    /** The holder's lease end bounds the sleep (an expiry publishes nothing; a key without one, a watchdog period), as the deadline does. */
    private void sleep() {
        long holderTtl = blocked.holderTtlMillis() >= 0 ? Math.max(1, blocked.holderTtlMillis()) : locker.watchdogTimeout().toMillis();
        wakeAfter(Math.max(0, Math.min(remainingNanos(), TimeUnit.MILLISECONDS.toNanos(holderTtl))));
    }

    private long remainingNanos() {
        return waitNanos == Locker.WAIT_FOREVER ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - startNanos);
    }

    /** The attempt holds the lock: done, unless the wait was told to stop meanwhile; then the lock goes back. */
    private void acquired() {
        stopSteps();
        Throwable stop = stopReason != null || !locker.isClosed() ? stopReason : closedWhileWaiting();
        if (stop == null) {
            finish(true, null);
        } else {
            finishAfter(giveBack, true, stop);
        }
    }

    /** Ends the wait without the lock ({@code failure} null: it ran out) once its place is withdrawn and a lost reply's take given back. */
    private void end(Throwable failure, boolean replyLost) {
        if (!ended) {
            stopSteps();
            finishAfter(() -> attempt.abandon(replyLost), false, failure);
        }
    }

    /** Ends the wait without the lock once {@code undo} is done; its failure is only logged: what it leaves ends by itself. */
    private void finishAfter(Supplier<CompletableFuture<Void>> undo, boolean givingBack, Throwable failure) {
        CompletableFuture<Void> undone = ScriptTransport.started(undo);
        boolean now = undone.isDone();
        undone.whenComplete((done, undoFailure) -> {
            if (undoFailure != null) {
                HeldLocks.LOCKER_LOG.warn(givingBack ? "Could not give back " + what.get() + ", taken as its wait was stopped; it frees when its lease ends"
                        : "Could not withdraw the wait for " + what.get() + "; its place expires by itself", ScriptTransport.unwrap(undoFailure));
            }
            if (now) {
                finish(false, failure);
            } else { // the reply came on an event loop: the outcome, and the caller's code with it, completes where steps run
                onStepThread(() -> finish(false, failure));
            }
        });
    }

    /** Ends the owner's turn, completes the outcome and tells the locker; also for a wait whose steps can no longer run. */
    final void finish(boolean held, Throwable failure) {
        try {
            OwnerTurns.Turn taken = turn;
            if (taken != null && !outcome.isDone()) {
                taken.end();
            }
        } finally {
            if (failure != null ? outcome.completeExceptionally(failure) : outcome.complete(held)) {
                locker.ended(this);
            }
        }
    }

    private void stopSteps() {
        ended = true;
        cancelTimer();
        if (waiting != null) {
            waiting.close();
        }
        if (joining != null) {
            joining.thenAccept(Waiting::close); // confirmed after the wait ended
            joining = null;
        }
    }

    /** Names the lock waited for, and the locker the application called: the AsyncLocker for a wait that holds no thread. */
    public final IllegalStateException closedWhileWaiting() {
        return new IllegalStateException((this instanceof ExecutorWait ? "AsyncLocker" : "Locker")
                + " is closed (its application context has shut down) while waiting for " + what.get());
    }
}
