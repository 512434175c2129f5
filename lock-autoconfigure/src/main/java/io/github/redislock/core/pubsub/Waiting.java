package io.github.redislock.core.pubsub;

import io.github.redislock.core.wait.ParkedWait;
import java.util.concurrent.Semaphore;

/** One waiter's membership in a channel's waiters; close it when done waiting. */
public final class Waiting implements AutoCloseable {

    private final ReleaseChannel channel;
    private final ReleaseSubscriptions subscriptions;
    /** The name its wait queued under, whose hand-off wakes it alone; null for none. */
    final String waitName;
    /** Wake-ups delivered and not yet taken; one left unused when it leaves goes to the next waiter. */
    final Semaphore wakeUps = new Semaphore(0);
    /** Told of every wake-up: it asks the wait for a step. */
    private final Runnable onWake;
    private volatile long grantedToken = -1;
    /** Set under the channel's monitor, so that a wake-up never lands on a waiter that left. */
    volatile boolean left;
    /** Whether a thread is parked in this wait now, for tests. */
    volatile boolean parked;
    /** Whether the wake-ups last taken came from a release, not a hand-off; step threads only. */
    private boolean woken;

    Waiting(ReleaseSubscriptions subscriptions, ReleaseChannel channel, String waitName, Runnable onWake) {
        this.subscriptions = subscriptions;
        this.channel = channel;
        this.waitName = waitName;
        this.onWake = onWake;
    }

    /** Consumes the wake-ups delivered so far; one delivered after this and never consumed is passed on when it leaves. */
    public boolean takeWakeUps() {
        boolean wakeUp = wakeUps.drainPermits() > 0;
        woken = wakeUp && grantedToken < 0;
        return wakeUp;
    }

    /**
     * Hands the release's wake-up this waiter last consumed to the next local waiter of the lock: it
     * stops waiting for this lock having neither taken it nor seen it taken (a multi-lock that found
     * another of its keys held), and only one local waiter was woken for the release.
     */
    public void passOnWakeUp() {
        if (woken) {
            woken = false;
            channel.wakeNext();
        }
    }

    /**
     * Whether every hand-off published since {@code nanos} (a System.nanoTime()) reaches this waiter, so
     * a wait that queued after that moment need not look at its lock again after joining.
     */
    public boolean hearsEverythingSince(long nanos) {
        return subscriptions.inboxHeardSince(nanos);
    }

    /** The fencing token of the hold a release handed to this wait (its owner holds the lock in Redis already), or -1. */
    public long grantedToken() {
        return grantedToken;
    }

    void wake() {
        wakeUps.release();
        if (onWake != null) {
            onWake.run();
        }
    }

    void grant(long token) {
        grantedToken = token;
        wake();
    }

    /** Said by the thread of a {@link ParkedWait} as it parks and wakes. */
    public void parked(boolean parked) {
        this.parked = parked;
    }

    @Override
    public void close() {
        if (!left) {
            channel.remove(this);
            subscriptions.left(this, channel);
        }
    }
}
