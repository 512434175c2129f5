package io.github.redislock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * One Redlock try of a single plain lock, as the shared wait repeats it ({@link LockWait}): a round on
 * every master ({@link RedlockQuorum#acquire}), whose hold the shared {@link HeldLocks} register.
 *
 * <p>It queues nowhere, and announces no release it could be woken by. A wait queue would have to be
 * agreed on by a majority of independent masters, and a release that hands the lock over on one master
 * hands it over on none of the others; a release message from one master says nothing about the
 * majority. So a blocked try asks to be tried again after a random pause around the retry delay, as
 * the algorithm prescribes: competing clients do not retry in lock-step.
 */
final class RedlockAttempt implements LockAttempt {

    private final RedlockQuorum quorum;
    private final HeldLocks holds;
    private final OwnerTurns turns;
    private final LockKeys keys;
    private final String owner;
    private final boolean sharedOwner;
    private final long leaseMillis;
    private final long redisLease;
    private final long watchdogTimeoutMillis;
    private final Duration retryDelay;
    private OwnerTurns.Turn turn;

    RedlockAttempt(RedlockQuorum quorum, HeldLocks holds, OwnerTurns turns, LockKeys keys, String owner, boolean sharedOwner, long leaseMillis,
                   long redisLease, long watchdogTimeoutMillis, Duration retryDelay) {
        this.quorum = quorum;
        this.holds = holds;
        this.turns = turns;
        this.keys = keys;
        this.owner = owner;
        this.sharedOwner = sharedOwner;
        this.leaseMillis = leaseMillis;
        this.redisLease = redisLease;
        this.watchdogTimeoutMillis = watchdogTimeoutMillis;
        this.retryDelay = retryDelay;
    }

    @Override
    public CompletableFuture<Try> send(boolean queue, Executor blockingFallback) {
        Hold known = holds.get(keys.name(), owner, LockKind.PLAIN);
        boolean firstHold = known == null || known.lost;
        long undoLease = firstHold ? 0 : known.watched ? watchdogTimeoutMillis : known.leaseMillis;
        return quorum.acquire(keys, owner, redisLease, firstHold, undoLease).thenApply(answer -> () -> settle(answer));
    }

    private Blocked settle(LockCommands.Acquisition answer) {
        if (answer.acquired()) {
            holds.acquired(keys, owner, LockKind.PLAIN, answer.holdCounts()[0], 0, leaseMillis);
            return null;
        }
        return new Blocked(null, Math.max(1, TimeUnit.NANOSECONDS.toMillis(randomRetryDelayNanos())));
    }

    private long randomRetryDelayNanos() {
        long average = retryDelay.toNanos();
        return average / 2 + ThreadLocalRandom.current().nextLong(Math.max(1, average));
    }

    @Override
    public OwnerTurns.Turn turn() { // taken when the wait begins, as a single Redis lock's
        if (turn == null) {
            turn = turns.take(keys.name(), owner, sharedOwner);
        }
        return turn;
    }
}
