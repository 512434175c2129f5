package io.github.redislock.core.pubsub;

import io.github.redislock.core.wait.ParkedWait;
import java.util.concurrent.Semaphore;

/** One waiter's membership in a channel's waiters; close it when done waiting. */
public final class Waiting implements AutoCloseable {

    private final ReleaseChannel channel;
    private final ReleaseSubscriptions subscriptions;
    private final String waitName;
    private final Semaphore wakeUps = new Semaphore(0);
    /** Told of every wake-up: it asks the wait for a step. */
    private final Runnable onWake;
    private volatile long grantedToken = -1;
    private volatile boolean left;
    private volatile boolean parked;
    /** Whether the wake-ups last taken came from a release (not a hand-off), which {@link #passOnWakeUp} may pass on. Step threads only. */
    private boolean woken;

    Waiting(ReleaseSubscriptions subscriptions, ReleaseChannel channel, String waitName, Runnable onWake) {
        this.subscriptions = subscriptions;
        this.channel = channel;
        this.waitName = waitName;
        this.onWake = onWake;
    }

    /**
     * Consumes the wake-ups delivered so far (each also asked its wait for a step); one delivered after
     * this call and never consumed is passed on when it leaves.
     *
     * @return whether there was any
     */
    public boolean takeWakeUps() {
        boolean wakeUp = wakeUps.drainPermits() > 0;
        woken = wakeUp && grantedToken < 0;
        return wakeUp;
    }

    /**
     * Hands the release's wake-up this waiter last consumed to the next local waiter of the lock: it
     * stops waiting for this lock having neither taken it nor seen it taken (a multi-lock that found
     * another of its keys held), so the lock may be free and only one local waiter was woken for it.
     * Without this, the others would sleep until the holder's lease would have ended.
     */
    public void passOnWakeUp() {
        if (woken) {
            woken = false;
            channel.wakeNext();
        }
    }

    /**
     * Whether every hand-off published since {@code nanos} (a System.nanoTime()) reaches this waiter:
     * the inbox subscription was confirmed before then. A wait that queued after that moment need not
     * look at the lock again after joining; a hand-off that came before the join was kept for it.
     */
    public boolean hearsEverythingSince(long nanos) {
        return subscriptions.inboxHeardSince(nanos);
    }

    /**
     * The fencing token of the hold a release handed to this wait, or -1 when none did:
     * the owner then holds the lock in Redis already.
     */
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

    String waitName() {
        return waitName;
    }

    boolean hasLeft() {
        return left;
    }

    void markLeft() {
        left = true;
    }

    /** Takes a wake-up delivered and never used, for a waiter leaving: the next waiter may need it. */
    boolean tookUnusedWakeUp() {
        return wakeUps.tryAcquire();
    }

    /** For diagnostics and tests: whether a thread is parked in this wait now. */
    boolean hasParkedThread() {
        return parked;
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
