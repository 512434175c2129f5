package io.github.redislock.core;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One lock's release channel as this instance subscribes it: its local waiters, longest-waiting
 * first, and the bookkeeping of its lingering unsubscribe.
 */
final class ReleaseChannel {
    final String name;
    /** The confirmation of the channel's own SUBSCRIBE wakes nobody; only a later one (a re-subscription) does. */
    final AtomicBoolean firstConfirmationPending = new AtomicBoolean(true);
    /** Its waiters, the next one a release wakes first: the one that has waited longest. */
    final Deque<Waiting> queue = new ConcurrentLinkedDeque<>();
    /** Written under the subscriptions' command lock; read without it when a message arrives. */
    volatile int waiters;
    /** When the last waiter left (under the subscriptions' command lock). */
    long idleSince;
    /** Whether a background unsubscribe check is pending (under the subscriptions' command lock). */
    boolean unsubscribeScheduled;

    ReleaseChannel(String name) {
        this.name = name;
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
