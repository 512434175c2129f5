package io.github.redislock.core.pubsub;

import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One lock's release channel as this instance subscribes it: its local waiters, longest-waiting
 * first, its subscription and its lingering unsubscribe. The subscription state has a monitor of its
 * own, apart from this object's, which guards wake-ups on the client's event loop.
 */
public final class ReleaseChannel {
    final String name;
    /** The confirmation of the channel's own SUBSCRIBE wakes nobody; only a later one (a re-subscription) does. */
    final AtomicBoolean firstConfirmationPending = new AtomicBoolean(true);
    /** Its waiters, the next one a release wakes first: the one that has waited longest. */
    final Deque<Waiting> queue = new ConcurrentLinkedDeque<>();
    /** Guards the subscription state below; never taken on the client's event loop. */
    final Object subscriptionMonitor = new Object();
    /** Waiters counted, those still waiting for the confirmation included. */
    volatile int waiters;
    /** Waiters whose join completed (their channel confirmed). */
    final AtomicInteger confirmedWaiters = new AtomicInteger();
    /** When the last waiter left; whether an unsubscribe check is pending; whether it was unsubscribed and leaves the map. */
    long idleSince;
    boolean unsubscribeScheduled;
    boolean dropped;
    /** Completes when Redis confirmed the latest subscribe of the channel; written under the subscription monitor. */
    volatile CompletableFuture<Void> confirmation;

    ReleaseChannel(String name) {
        this.name = name;
    }

    /** Wakes the waiter at the front, which then goes to the back: the others come first next time. */
    synchronized void wakeNext() {
        for (Waiting next = queue.pollFirst(); next != null; next = queue.pollFirst()) {
            if (!next.left) {
                queue.addLast(next);
                next.wake();
                return;
            }
        }
    }

    synchronized void remove(Waiting waiting) {
        waiting.left = true;
        queue.remove(waiting);
        if (waiting.wakeUps.tryAcquire()) {
            wakeNext(); // it left without using this wake-up: the next waiter may need it
        }
    }
}
