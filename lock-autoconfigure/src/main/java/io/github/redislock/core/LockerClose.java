package io.github.redislock.core;

import io.github.redislock.LockRedisException;
import io.github.redislock.core.pubsub.Waiting;
import io.github.redislock.core.script.ScriptTransport;
import io.github.redislock.core.wait.LockWait;
import io.github.redislock.core.wait.WaitHost;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** The one close protocol of every locker of an instance, and the {@link WaitHost} of its waits, kept out of the public lockers. */
final class LockerClose implements WaitHost {

    /** How long {@link #close()} lets waits in flight settle (a try in flight ends within the command timeout). */
    private static final long WAITS_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final Duration RELEASE_GRACE = Duration.ofSeconds(2);

    private final RedisLocker locker;
    /** Set first by {@link #close()}: no new acquisition; releases still go through. */
    volatile boolean closing;
    /** Set once the holds are cleared: nothing goes through any more. */
    volatile boolean closed;
    final Set<LockWait> waits = ConcurrentHashMap.newKeySet();

    LockerClose(RedisLocker locker) {
        this.locker = locker;
    }

    @Override
    public Duration watchdogTimeout() {
        return locker.watchdog.timeout();
    }

    @Override
    public boolean isClosed() {
        return closing;
    }

    @Override
    public void started(LockWait wait) {
        waits.add(wait);
        if (closing) { // read after the add, as close() reads the waits after setting it: one of the two sees the other
            wait.signal();
        }
    }

    @Override
    public void ended(LockWait wait) {
        waits.remove(wait);
    }

    @Override
    public CompletableFuture<Waiting> join(String channel, String waitName, String what, Runnable onWake) {
        return locker.subscriptions.join(channel, waitName, onWake).exceptionallyCompose(failure -> {
            Throwable cause = ScriptTransport.unwrap(failure);
            String why = cause instanceof TimeoutException ? "Redis did not confirm it within the client's command timeout"
                    : ScriptTransport.rootMessage(cause);
            return CompletableFuture.failedFuture(
                    new LockRedisException("Cannot subscribe to the release channel " + channel + " of " + what + ": " + why, cause));
        });
    }

    /** Stops new acquisitions; withdraws, ends and awaits every wait (one that got its lock gives it back); lets holders release; then stops renewal and subscriptions. */
    void close() {
        synchronized (waits) {
            if (closing) {
                return;
            }
            closing = true;
        }
        locker.attempts.withdrawQueued(); // no queued wait may be handed a lock now (it would stay taken for the claim lease)
        waits.forEach(LockWait::signal); // each sees the locker closing at its next step, and ends
        awaitUntil(waits::isEmpty, System.nanoTime() + WAITS_GRACE_NANOS);
        awaitReleases();
        closed = true;
        locker.stopRenewalAndSubscriptions();
    }

    /** Lets other live threads' holds release and waits withdraw, up to {@link #RELEASE_GRACE}, while Redis answers (a stopped Spring Integration leader unlocks a moment later). */
    void awaitReleases() {
        String closingOwner = locker.currentOwner();
        awaitUntil(() -> waits.isEmpty() && !locker.holds.any(hold -> hold.live() && !hold.owner.equals(closingOwner) && hold.terminatedOwnerThread() == null),
                System.nanoTime() + Math.min(RELEASE_GRACE.toNanos(), locker.watchdog.timeout().toNanos()));
    }

    /** Waits until {@code done}, or the deadline; an interrupt does not stop a close half-way, it is kept for the caller. */
    static void awaitUntil(BooleanSupplier done, long deadlineNanos) {
        boolean interrupted = false;
        while (!done.getAsBoolean() && deadlineNanos - System.nanoTime() > 0) {
            LockSupport.parkNanos(2_000_000);
            interrupted |= Thread.interrupted(); // the close goes on: stopping half-way would leave queued waits and holds behind
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
