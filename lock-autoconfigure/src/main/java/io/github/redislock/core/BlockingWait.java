package io.github.redislock.core;

import java.util.function.Supplier;

import io.github.redislock.Locker;
import io.github.redislock.LockRedisException;

import java.util.concurrent.TimeUnit;


/**
 * The wait of a thread for a lock, any kind: tries once, and while the lock is held elsewhere parks
 * until a release message or hand-off, the holder's lease end or its queue place's refresh, whichever
 * comes first, then tries again. {@link AsyncWait} drives the same {@link LockAttempt} without a thread.
 */
final class BlockingWait {

    private BlockingWait() {
    }

    /**
     * @param what      the lock as messages name it, built only for a message
     * @param waitNanos 0 tries once, {@link Locker#WAIT_FOREVER} has no deadline
     * @return whether the lock is held (its holds registered by the attempt)
     */
    static boolean run(RedisLocker locker, LockAttempt attempt, Supplier<String> what, long waitNanos, boolean interruptible)
            throws InterruptedException {
        if (interruptible && Thread.interrupted()) { // as java.util.concurrent's locks: an interrupt comes first, even when the lock is free
            throw new InterruptedException("Interrupted before trying to take " + what.get());
        }
        long firstTry = System.nanoTime();
        boolean acquired = false;
        Waiting waiting = null;
        String channel = null;
        long start = System.nanoTime();
        try {
            // Inside the try: a first try whose reply failed may still have queued, and that place is withdrawn below.
            LockAttempt.Blocked blocked = attempt.tryOnce(waitNanos != 0);
            if (blocked == null) {
                acquired = true;
                return true;
            }
            if (waitNanos == 0) {
                return false;
            }
            if (interruptible && Thread.interrupted()) {
                throw new InterruptedException("Interrupted before waiting for " + what.get());
            }
            OutageRideOut outage = new OutageRideOut(locker.watchdogTimeout().toNanos());
            long expiredGrant = -1;
            while (true) {
                long remaining = waitNanos == Locker.WAIT_FOREVER ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
                if (!blocked.channel().equals(channel)) {
                    if (waiting != null) {
                        waiting.passOnWakeUp(); // it no longer waits for the lock it may have been woken for
                    }
                    if (channel != null && remaining <= 0) {
                        return false; // a multi-lock found another key in the way as its wait ran out
                    }
                    if (waiting != null) {
                        waiting.close();
                        waiting = null;
                    }
                    waiting = locker.join(blocked.channel(), attempt.waitName(), what.get(), null);
                    channel = blocked.channel();
                    if (attempt.waitName() != null && waiting.hearsEverythingSince(firstTry)) {
                        continue; // queued while the channel was heard: a hand-off cannot have been missed
                    }
                    // else try again: a release before the subscription is not missed
                } else {
                    if (remaining <= 0) {
                        if (outage.failure() != null) {
                            throw outage.failure();
                        }
                        return false;
                    }
                    // The holder's lease bounds the wait: an expiry publishes nothing. A key without expiry was not set by us; look again after a watchdog period.
                    long holderTtl = blocked.holderTtlMillis() >= 0 ? Math.max(1, blocked.holderTtlMillis()) : locker.watchdogTimeout().toMillis();
                    long park = Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(holderTtl));
                    if (interruptible) {
                        awaitNamingTheLock(waiting, park, what);
                    } else {
                        waiting.awaitUninterruptibly(park);
                    }
                    long handedOverToken = waiting.grantedToken();
                    if (handedOverToken >= 0 && handedOverToken != expiredGrant) {
                        if (attempt.handedOver(handedOverToken)) {
                            acquired = true;
                            return true;
                        }
                        expiredGrant = handedOverToken; // its claim lease ran out; a later hand-off brings a new token
                    }
                }
                if (locker.isClosed()) {
                    throw new IllegalStateException("Locker is closed (its application context has shut down) while waiting for " + what.get());
                }
                LockAttempt.Blocked previous = blocked;
                try {
                    blocked = attempt.tryOnce(true);
                } catch (LockRedisException e) {
                    if (!outage.rideOut(e) || locker.isClosed()) { // a long outage, or a shutdown, ends the wait
                        throw e;
                    }
                    blocked = new LockAttempt.Blocked(previous.channel(), OutageRideOut.RETRY_AFTER_MILLIS);
                    continue;
                }
                outage.answered();
                if (blocked == null) {
                    acquired = true;
                    return true;
                }
            }
        } finally {
            if (waiting != null) {
                waiting.close();
            }
            if (!acquired) {
                RedisLocker.abandon(attempt, what.get());
            }
        }
    }

    private static void awaitNamingTheLock(Waiting waiting, long nanos, Supplier<String> what) throws InterruptedException {
        try {
            waiting.await(nanos);
        } catch (InterruptedException e) {
            InterruptedException named = new InterruptedException("Interrupted while waiting for " + what.get());
            named.initCause(e);
            throw named;
        }
    }
}
