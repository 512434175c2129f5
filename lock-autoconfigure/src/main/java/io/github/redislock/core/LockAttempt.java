package io.github.redislock.core;

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

    /** @param channel where the release that may unblock the attempt is announced */
    record Blocked(String channel, long holderTtlMillis) {
    }
}
