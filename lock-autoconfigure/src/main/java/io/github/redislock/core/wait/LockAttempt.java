package io.github.redislock.core.wait;

import java.util.concurrent.CompletableFuture;

/**
 * One lock request as a {@link LockWait} sees it, whatever the lock kind. Its {@link Try} reads the answer
 * on the wait's own thread, never the event loop: registering a hold may wait for the watchdog, and
 * belongs to the caller's {@link io.github.redislock.LockNameScope}.
 */
public interface LockAttempt {

    interface Try {
        /** @return null when the locks are now held (and their holds registered), else what blocks them */
        Blocked settle();
    }

    /** @param queue whether the caller will wait (a queued or fair lock then keeps its place in the queue) */
    CompletableFuture<?> send(boolean queue);

    /** Reads the answer {@link #send} completed with: a {@link Try}, unless the attempt reads its own (no stage after its reply). */
    default Blocked settle(Object answer) {
        return ((Try) answer).settle();
    }

    /** What a release that hands the lock to this wait names it by; null when it does not queue. */
    default String waitName() {
        return null;
    }

    /** A release handed the lock, with this fencing token, to this queued wait. */
    default HandOff handedOver(long token) {
        throw new IllegalStateException("Only a queued single lock is handed over, yet a hand-off with token " + token + " arrived");
    }

    /** HELD once registered; EXPIRED when the claim lease ran out first; WITHDRAWN when a closing locker withdrew the wait first. */
    enum HandOff { HELD, EXPIRED, WITHDRAWN }

    /** Withdraws a queue place the wait may have, and gives back a hold a try whose reply ({@code replyLost}) was lost may have taken. */
    default CompletableFuture<Void> abandon(boolean replyLost) {
        return OwnerTurns.NOW;
    }

    /** Takes this attempt's place in its owner's line ({@link OwnerTurns}), once, as its wait begins. */
    default OwnerTurns.Turn turn() {
        return OwnerTurns.NONE;
    }

    /** @param channel where the release that may unblock the attempt is announced */
    record Blocked(String channel, long holderTtlMillis) {
    }
}
