package io.github.redislock.core;

import io.github.redislock.Locker;
import io.github.redislock.LockAcquisitionException;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What every {@link Locker} of this library shares: its client id and owner fields, the key checks,
 * and the convenience methods defined by the primitive ones.
 */
abstract class AbstractLocker implements Locker, WatchdogState.Source, AutoCloseable {

    /** Prepended to every key to form its Redis key. */
    final String keyPrefix;
    /** This instance's id: the first part of every owner field it writes. */
    final String clientId = UUID.randomUUID().toString();
    volatile boolean closed;
    /** What this locker's waits ask of it, without making it public. */
    final WaitHost waitHost = new WaitHost() {
        @Override
        public Duration watchdogTimeout() {
            return AbstractLocker.this.watchdogTimeout();
        }

        @Override
        public boolean isClosed() {
            return closed;
        }

        @Override
        public CompletableFuture<Waiting> join(String channel, String waitName, String what, Runnable onWake) {
            return joinReleases(channel, waitName, what, onWake);
        }
    };

    AbstractLocker(String keyPrefix) {
        if (keyPrefix == null || keyPrefix.isBlank()) {
            throw new IllegalArgumentException("Lock key prefix must not be blank");
        }
        this.keyPrefix = keyPrefix;
    }

    /** This instance's id, the first part of every owner field it writes. */
    public String getClientId() {
        return clientId;
    }

    /** The prefix of every lock's Redis key. */
    public String getKeyPrefix() {
        return keyPrefix;
    }

    /** How long the watchdog keeps a lock without a lease, and so how long a wait rides out an outage. */
    abstract Duration watchdogTimeout();

    /** The lease a lock gets in Redis: the watchdog timeout for one the watchdog keeps, else its own. */
    long redisLease(long leaseMillis) {
        return leaseMillis == WATCHDOG_LEASE ? watchdogTimeout().toMillis() : leaseMillis;
    }

    /** Joins a lock's release channel for a wait (see {@link WaitHost#join}). */
    abstract CompletableFuture<Waiting> joinReleases(String channel, String waitName, String what, Runnable onWake);

    /** Takes the plain lock on {@code key} for the calling thread, waiting as long as needed and keeping interrupts for later. */
    abstract void lockUninterruptibly(String key, long leaseMillis);

    // What a LockView calls: one kind of lock on its keys (FAIR, READ and WRITE take exactly one), the calling thread the owner.

    abstract void lockUninterruptibly(LockKind kind, List<String> keys, long leaseMillis);

    abstract void lockInterruptibly(LockKind kind, List<String> keys) throws InterruptedException;

    abstract boolean tryLock(LockKind kind, List<String> keys);

    abstract boolean tryLock(LockKind kind, List<String> keys, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    abstract void unlock(LockKind kind, String key);

    abstract int holdCount(LockKind kind, String key);

    abstract long fencingToken(LockKind kind, String key);

    @Override
    public void lock(String key) {
        lockUninterruptibly(key, WATCHDOG_LEASE);
    }

    @Override
    public void lock(String key, int leaseSeconds) {
        lockUninterruptibly(key, LockTimes.leaseMillis(key, leaseSeconds, TimeUnit.SECONDS));
    }

    @Override
    public void lock(String key, TimeUnit unit, int leaseTime) {
        lockUninterruptibly(key, LockTimes.leaseMillis(key, leaseTime, unit));
    }

    @Override
    public boolean isHeldByCurrentThread(String key) {
        return getHoldCount(key) > 0;
    }

    @Override
    public <T> T withLock(String key, Duration waitTime, Supplier<T> action) {
        Objects.requireNonNull(waitTime, () -> "Wait time for lock '" + key + "' must not be null");
        Objects.requireNonNull(action, () -> "Action for lock '" + key + "' must not be null");
        boolean acquired;
        try {
            acquired = tryLock(key, waitTime.toMillis(), WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(key, waitTime, e);
        }
        if (!acquired) {
            throw new LockAcquisitionException(key, waitTime);
        }
        try {
            return action.get();
        } finally {
            unlock(key);
        }
    }

    LockKeys keys(String key) {
        requireOpen(key);
        return LockKeys.of(keyPrefix, key);
    }

    /** The calling thread's owner field, built once per thread: every lock and unlock needs it, some several times. */
    private final ThreadLocal<String> threadOwners = ThreadLocal.withInitial(() -> clientId + ":" + Thread.currentThread().getId());

    String currentOwner() {
        return threadOwners.get();
    }

    /** The Redis key of {@code key} alone, for finding a hold: cheaper than all of {@link #keys(String)}'s names. */
    String redisName(String key) {
        requireOpen(key);
        LockKeys.validate(key);
        return keyPrefix + key;
    }

    private void requireOpen(String key) {
        if (closed) {
            throw new IllegalStateException("Locker is closed (its application context has shut down); cannot use lock '" + key + "'");
        }
    }

    /** A token owner's field; the '~' keeps it apart from every thread owner's numeric id. */
    String tokenOwner(String ownerToken) {
        if (ownerToken == null || ownerToken.isBlank() || ownerToken.length() > 200) {
            throw new IllegalArgumentException("Owner token must be 1 to 200 non-blank characters, but was "
                    + (ownerToken == null ? "null" : "'" + ownerToken + "'"));
        }
        return clientId + ":~" + ownerToken;
    }
}
