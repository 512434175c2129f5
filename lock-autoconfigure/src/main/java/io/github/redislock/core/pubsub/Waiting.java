package io.github.redislock.core.pubsub;

import io.github.redislock.core.pubsub.ReleaseSubscriptions.ReleaseChannel;
import java.util.concurrent.Semaphore;

/** One waiter's place among a channel's local waiters, where its wake-ups and hand-off arrive; closed when it stops waiting. */
public final class Waiting implements AutoCloseable {

    private final ReleaseSubscriptions subscriptions;
    private final ReleaseChannel channel;
    final String waitName;
    private final Semaphore wakeUps = new Semaphore(0);
    private final Runnable onWake;
    private volatile long grantedToken = -1;
    boolean left; // under the channel's monitor, so that a wake-up never lands on a waiter that left
    volatile boolean parked; // for tests
    /** Whether the wake-ups last taken came from a release, not a hand-off; step threads only. */
    private boolean woken;

    Waiting(ReleaseSubscriptions subscriptions, ReleaseChannel channel, String waitName, Runnable onWake) {
        this.subscriptions = subscriptions;
        this.channel = channel;
        this.waitName = waitName;
        this.onWake = onWake != null ? onWake : () -> { };
    }

    public boolean takeWakeUps() {
        boolean wakeUp = wakeUps.drainPermits() > 0;
        woken = wakeUp && grantedToken < 0;
        return wakeUp;
    }

    /** Passes the release's wake-up it took on: it stops waiting for this lock without taking it (a multi-lock). */
    public void passOnWakeUp() {
        if (woken) {
            woken = false;
            channel.wakeNext();
        }
    }

    /** Whether every hand-off published since {@code nanos} (a System.nanoTime()) reaches this waiter, on its sharded lock channel or else the inbox. */
    public boolean hearsEverythingSince(long nanos) {
        long confirmed = (channel.sharded ? channel : subscriptions.inbox).confirmedAt;
        return confirmed != 0 && confirmed - nanos < 0;
    }

    /** The fencing token of the hold a release handed to this wait, or -1. */
    public long grantedToken() {
        return grantedToken;
    }

    void wake() {
        wakeUps.release();
        onWake.run();
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
        synchronized (channel) {
            if (left) {
                return;
            }
            left = true;
            channel.queue.remove(this);
            if (wakeUps.tryAcquire()) {
                channel.wakeNext(); // it left without using this wake-up: the next waiter may need it
            }
        }
        if (waitName != null) {
            subscriptions.inbox.unregister(this);
        }
        subscriptions.leave(channel);
    }
}
