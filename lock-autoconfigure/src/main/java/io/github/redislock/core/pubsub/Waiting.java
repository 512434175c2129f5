package io.github.redislock.core.pubsub;

import io.github.redislock.core.pubsub.ReleaseSubscriptions.ReleaseChannel;
import java.util.concurrent.Semaphore;

/** One waiter's place among a channel's local waiters, where its wake-ups and hand-off arrive; closed when it stops waiting. */
public final class Waiting implements AutoCloseable {

    private final ReleaseSubscriptions subscriptions;
    private final ReleaseChannel channel;
    /** The name its wait queued under, whose hand-off wakes it alone; null for none. */
    final String waitName;
    /** Wake-ups delivered and not yet taken; one left unused when it leaves goes to the next waiter. */
    final Semaphore wakeUps = new Semaphore(0);
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

    /** Whether every hand-off published since {@code nanos} (a System.nanoTime()) reaches this waiter: a wait queued after that need not look at its lock again. */
    public boolean hearsEverythingSince(long nanos) {
        return subscriptions.inbox.heardSince(nanos);
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

    public void parked(boolean parked) {
        this.parked = parked;
    }

    @Override
    public void close() {
        if (!left) {
            channel.remove(this);
            if (waitName != null) {
                subscriptions.inbox.unregister(this);
            }
            subscriptions.leave(channel);
        }
    }
}
