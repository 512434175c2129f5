package io.github.redislock.core.pubsub;

import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One lock's release channel as this instance subscribes it: its local waiters, longest-waiting
 * first, its subscription and the bookkeeping of its lingering unsubscribe.
 *
 * <p>The subscription state has a monitor of its own, apart from the one that guards wake-ups, which
 * run on the client's event loop: nothing under it waits for Redis, but the event loop never takes it.
 */
public final class ReleaseChannel {
    final String name;
    /** The confirmation of the channel's own SUBSCRIBE wakes nobody; only a later one (a re-subscription) does. */
    final AtomicBoolean firstConfirmationPending = new AtomicBoolean(true);
    /** Its waiters, the next one a release wakes first: the one that has waited longest. */
    final Deque<Waiting> queue = new ConcurrentLinkedDeque<>();
    /** Guards the fields below that say so; never taken on the client's event loop. */
    final Object subscriptionMonitor = new Object();
    /** Waiters counted, those still waiting for the confirmation included. Written under the subscription monitor; read without it. */
    volatile int waiters;
    /** Waiters whose join completed (their channel confirmed). */
    final AtomicInteger confirmedWaiters = new AtomicInteger();
    /** When the last waiter left (under the subscription monitor). */
    long idleSince;
    /** Whether a background unsubscribe check is pending (under the subscription monitor). */
    boolean unsubscribeScheduled;
    /** Unsubscribed and leaving the map: a join must register the channel afresh (under the subscription monitor). */
    boolean dropped;
    /** Completes when Redis confirmed the latest subscribe of the channel; written under the subscription monitor. */
    private volatile CompletableFuture<Void> confirmation;

    ReleaseChannel(String name) {
        this.name = name;
    }

    CompletableFuture<Void> confirmation() {
        return confirmation;
    }

    void confirmation(CompletableFuture<Void> confirmation) {
        this.confirmation = confirmation;
    }

    /** Wakes the waiter at the front, which then goes to the back: the others come first next time. */
    synchronized void wakeNext() {
        for (Waiting next = queue.pollFirst(); next != null; next = queue.pollFirst()) {
            if (!next.hasLeft()) {
                queue.addLast(next);
                next.wake();
                return;
            }
        }
    }

    /** Under the same monitor as {@link #wakeNext}, so a wake-up never lands on a waiter that already left. */
    synchronized void remove(Waiting waiting) {
        waiting.markLeft();
        queue.remove(waiting);
        if (waiting.tookUnusedWakeUp()) {
            wakeNext(); // it left without using this wake-up: the next waiter may need it
        }
    }
}
