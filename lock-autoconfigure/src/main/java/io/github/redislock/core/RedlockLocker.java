package io.github.redislock.core;

import io.github.redislock.LockObserver;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisMultiLock;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.core.hold.Hold;
import io.github.redislock.core.pubsub.ChannelSubscriber;
import io.github.redislock.core.pubsub.ReleaseSubscriptions;
import io.github.redislock.core.redlock.RedlockQuorum;
import io.github.redislock.core.renewal.LockWatchdog;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.core.wait.LockAttempt;
import io.github.redislock.core.wait.OwnerTurns;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A locker that follows the Redlock algorithm over independent Redis masters: a {@link RedisLocker}
 * whose script calls go to a {@link RedlockQuorum}, so holds, releases, turns, watchdog and close are
 * the shared ones; only its attempt differs ({@link #plainAttempt}). It offers no other lock kind and no
 * fencing tokens, so the Spring Integration registry and the leader election refuse it when built.
 */
public class RedlockLocker extends RedisLocker {

    private static final ChannelSubscriber NO_CHANNELS = (inbox, listener) -> CompletableFuture.failedFuture(
            new IllegalStateException("A Redlock wait joins no release channel"));

    private final RedlockQuorum quorum;
    private final Duration retryDelay;

    /** @param nodes one connection factory per independent master (3 or more), named in logs by {@code nodeNames}; settings checked before they connect */
    public RedlockLocker(List<RedisConnectionFactory> nodes, List<String> nodeNames, Duration nodeTimeout, Duration retryDelay,
                         Duration watchdogTimeout, String keyPrefix, ApplicationEventPublisher events) {
        this(LockWatchdog.checkedTimeout(watchdogTimeout), Objects.requireNonNull(retryDelay, "retryDelay"),
                new RedlockQuorum(nodes, nodeNames, nodeTimeout, watchdogTimeout, checkedKeyPrefix(keyPrefix)), keyPrefix, events);
    }

    private RedlockLocker(Duration watchdogTimeout, Duration retryDelay, RedlockQuorum quorum, String keyPrefix, ApplicationEventPublisher events) {
        super(quorum, new LockWatchdog(watchdogTimeout, quorum, LockObserver.NONE), new ReleaseSubscriptions(NO_CHANNELS, keyPrefix + "__anchor"), keyPrefix,
                events, LockObserver.NONE);
        this.quorum = quorum;
        this.retryDelay = retryDelay;
    }

    public int getQuorum() {
        return quorum.quorum();
    }

    /**
     * One round on every master ({@link RedlockQuorum#acquire}), queued nowhere and listening for no release
     * message (neither means anything to the other masters); a blocked try is retried after a random pause.
     */
    @Override
    LockAttempt plainAttempt(List<LockKeys> keys, String owner, long leaseMillis, long redisLease) {
        LockKeys lock = keys.get(0);
        boolean sharedOwner = !owner.equals(currentOwner());
        return new LockAttempt() {
            @Override
            public CompletableFuture<Try> send(boolean queue) {
                Hold known = holds.get(lock.name(), owner, LockKind.PLAIN);
                boolean firstHold = known == null || known.lost;
                return quorum.acquire(lock, owner, redisLease, firstHold, firstHold ? 0 : known.restoreLease(watchdog)).thenApply(answer -> () -> {
                    if (!answer.acquired()) {
                        long average = retryDelay.toMillis();
                        return new Blocked(null, Math.max(1, average / 2 + ThreadLocalRandom.current().nextLong(Math.max(1, average))));
                    }
                    holds.acquired(lock, owner, LockKind.PLAIN, answer.holdCounts()[0], 0, leaseMillis, true); // no Redlock master marks waiters
                    return null;
                });
            }

            @Override
            public OwnerTurns.Turn turn() { // taken when the wait begins: an attempt that never waits holds no one up
                return turns.take(lock.name(), owner, sharedOwner);
            }
        };
    }

    @Override
    LockAttempt queuedPlainAttempt(LockKeys keys, String owner, long leaseMillis) {
        throw unsupported("an AsyncLocker", "its waits queue for a hand-off, which no majority of independent masters makes");
    }

    @Override
    long fencingToken(LockKind kind, String key) {
        throw unsupported("fencing tokens", "each master counts its own tokens, and no majority rule makes them one increasing sequence");
    }

    @Override
    public RedisLock getFairLock(String key) {
        throw unsupported("fair locks", "the wait queue would have to be agreed on by a majority");
    }

    @Override
    public RedisReadWriteLock getReadWriteLock(String key) {
        throw unsupported("read-write locks", "their per-reader leases are not part of the Redlock algorithm");
    }

    @Override
    public RedisMultiLock getMultiLock(String... keys) {
        throw unsupported("multi-locks", "take the keys one by one in a fixed order instead");
    }

    @Override
    public LockAdmin admin() {
        throw unsupported("the admin view", "each master has its own state of a lock; ask them one by one");
    }

    @Override
    void stopRenewalAndSubscriptions() {
        super.stopRenewalAndSubscriptions();
        quorum.close();
    }

    private static UnsupportedOperationException unsupported(String what, String why) {
        return new UnsupportedOperationException("Redlock (redis-lock.redlock.nodes) does not offer " + what + ": " + why);
    }
}
