package io.github.redislock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * One lock request as a wait sees it, whatever the lock kind: tried again after every release message
 * or lease end. The per-kind attempts live with the holds they register ({@link RedisLocker}); what
 * drives them is either a parked thread ({@link BlockingWait}) or callbacks ({@link AsyncWait}).
 */
interface LockAttempt {

    /**
     * @param queue whether the caller will wait (a fair lock then keeps its place in the queue)
     * @return null when the locks are now held (and their holds registered), else what blocks them
     */
    Blocked tryOnce(boolean queue);

    /** What a release that hands the lock to this wait names it by; null when it does not queue. */
    default String waitName() {
        return null;
    }

    /**
     * A release handed the lock to this (queued) owner: Redis holds it for the owner already, with this fencing token.
     *
     * @return false when the hand-off's claim lease ran out before it could be extended: the wait goes on
     */
    default boolean handedOver(long token) {
        throw new IllegalStateException("Only a queued single lock is handed over, yet a hand-off with token " + token + " arrived");
    }

    /** The caller stops waiting without the lock. */
    default void abandon() {
    }

    /**
     * An attempt whose try comes in two halves, for a wait that holds no thread while Redis answers
     * ({@link AsyncWait}): {@link #send} puts the script on its way, {@link #settle} reads its answer as
     * {@link #tryOnce} would. Between them no thread waits, and the caller settles the answer on a thread
     * of its choosing: not the event loop that read the reply, as registering a hold may wait for the
     * watchdog (it replaces a hold found lost) and belongs to the caller's {@link io.github.redislock.LockNameScope}.
     */
    interface Async extends LockAttempt {

        /**
         * @param blockingFallback where the call runs, blocking, when it cannot go without a thread (see
         *                         {@link ScriptTransport#runAsync})
         * @return the script's answer, completed on the thread that read it
         */
        CompletableFuture<LockCommands.Acquisition> send(boolean queue, Executor blockingFallback);

        /**
         * @param answer what Redis answered the {@link #send} with the same {@code queue}
         * @return null when the lock is now held (and its hold registered), else what blocks it
         */
        Blocked settle(boolean queue, LockCommands.Acquisition answer);

        /**
         * {@link #abandon} without waiting for Redis.
         *
         * @return completes once the queue place is withdrawn (at once when it had none), on the thread
         *         that read the reply
         */
        CompletableFuture<Void> abandonAsync(Executor blockingFallback);
    }

    /** @param channel where the release that may unblock the attempt is announced */
    record Blocked(String channel, long holderTtlMillis) {
    }
}
