package io.github.redislock.core;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;
import io.github.redislock.core.hold.Hold;
import io.github.redislock.core.pubsub.Waiting;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.wait.LockWait;
import io.github.redislock.core.wait.WaitHost;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What every {@link Locker} of this library shares: its client id and owner fields, the key checks,
 * the convenience methods defined by the primitive ones, and the one close protocol.
 */
public abstract class AbstractLocker implements Locker, WatchdogState.Source, AutoCloseable {

    /** How long {@link #close()} lets waits in flight settle (a try in flight ends within the command timeout). */
    private static final long WAITS_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long at most {@link #close()} lets holders still running release their locks, while the connection works. */
    static final Duration RELEASE_GRACE = Duration.ofSeconds(2);

    /** Prepended to every key to form its Redis key. */
    final String keyPrefix;
    /** This instance's id: the first part of every owner field it writes. */
    final String clientId = UUID.randomUUID().toString();
    /** Set first by {@link #close()}: no new acquisition; releases still go through. */
    volatile boolean closing;
    /** Set once the holds are cleared: nothing goes through any more. */
    volatile boolean closed;
    /** Every wait in progress, parked or on an executor: a closing locker stops them and waits for them. */
    private final Set<LockWait> waits = ConcurrentHashMap.newKeySet();
    /** The calling thread's owner field, built once per thread: every lock and unlock needs it, some several times. */
    private final ThreadLocal<String> threadOwners = ThreadLocal.withInitial(() -> clientId + ":" + Thread.currentThread().getId());
    /** What this locker's waits ask of it, without making it public. */
    final WaitHost waitHost = new WaitHost() {
        @Override
        public Duration watchdogTimeout() {
            return AbstractLocker.this.watchdogTimeout();
        }

        @Override
        public boolean isClosed() {
            return closing;
        }

        @Override
        public void started(LockWait wait) {
            waits.add(wait);
            if (closing) { // read after the add, as close() reads the waits after setting it: one of the two sees the other
                wait.signal();
            }
        }

        @Override
        public void ended(LockWait wait) {
            waits.remove(wait);
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

    public String currentOwner() {
        return threadOwners.get();
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

    @Override
    public void lock(String key) {
        lockUninterruptibly(key, WATCHDOG_LEASE);
    }

    @Override
    public void lock(String key, int leaseSeconds) {
        lockUninterruptibly(key, LockKeys.leaseMillis(key, leaseSeconds, TimeUnit.SECONDS));
    }

    @Override
    public void lock(String key, TimeUnit unit, int leaseTime) {
        lockUninterruptibly(key, LockKeys.leaseMillis(key, leaseTime, unit));
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

    /** Waits in progress now, parked or on an executor, for tests and diagnostics. */
    int waitsInProgress() {
        return waits.size();
    }

    /** The keys of {@code key} for a new acquisition, which a closing locker refuses. */
    LockKeys keys(String key) {
        if (closing) {
            throw closedException(key);
        }
        return LockKeys.of(keyPrefix, key);
    }

    /** The keys of {@code key} for a release, which a closing locker still lets through. */
    LockKeys heldKeys(String key) {
        if (closed) {
            throw closedException(key);
        }
        return LockKeys.of(keyPrefix, key);
    }

    /** The Redis key of {@code key} alone, for finding a hold (cheaper than all of its keys); a closing locker still finds holds. */
    String redisName(String key) {
        if (closed) {
            throw closedException(key);
        }
        LockKeys.validate(key);
        return keyPrefix + key;
    }

    private static IllegalStateException closedException(String key) {
        return new IllegalStateException("Locker is closed (its application context has shut down); cannot use lock '" + key + "'");
    }

    /**
     * The one close protocol of every locker: it stops taking new acquisitions; withdraws and ends every
     * wait, parked or on an executor, and waits for them (a lock one got as it stopped is given back
     * meanwhile); lets holders release while the connection factory still works, up to
     * {@link #RELEASE_GRACE} (no longer than the watchdog timeout, after which the locks free themselves
     * anyway); only then stops renewal and subscriptions and forgets the holds. A Spring Integration
     * leader whose initiator was stopped unlocks from its own thread a moment later: its role passes on
     * at once instead of when its lease ends. Holds of the closing thread and of threads that ended are
     * not waited for: nobody will release them now. Locks still held then expire in Redis within the
     * watchdog timeout.
     */
    @Override
    public void close() {
        synchronized (waits) {
            if (closing) {
                return;
            }
            closing = true;
        }
        withdrawQueuedWaits();
        waits.forEach(LockWait::signal); // each sees the locker closing at its next step, and ends
        awaitUntil(waits::isEmpty, System.nanoTime() + WAITS_GRACE_NANOS);
        long releaseGrace = Math.min(RELEASE_GRACE.toNanos(), watchdogTimeout().toNanos());
        String closingOwner = currentOwner();
        awaitUntil(() -> !heldByOthers(closingOwner), System.nanoTime() + releaseGrace);
        closed = true;
        stopRenewalAndSubscriptions();
    }

    /** First step of {@link #close()}: no queued wait may be handed a lock now (it would stay taken for the claim lease). */
    abstract void withdrawQueuedWaits();

    /** Whether a hold of an owner other than {@code closingOwner} that may still release it remains. */
    abstract boolean heldByOthers(String closingOwner);

    /** Last step of {@link #close()}: stops renewing, listening and counting holds. */
    abstract void stopRenewalAndSubscriptions();

    /** Whether {@link #close()} waits for {@code hold}'s owner to release it. */
    static boolean releasableByOthers(Hold hold, String closingOwner) {
        return !hold.lost && !hold.owner.equals(closingOwner) && hold.terminatedOwnerThread() == null
                && (hold.watched || !hold.leaseSurelyEnded());
    }

    /** Waits until {@code done}, or the deadline; an interrupt does not stop a close half-way, it is kept for the caller. */
    static void awaitUntil(BooleanSupplier done, long deadlineNanos) {
        boolean interrupted = false;
        while (!done.getAsBoolean() && deadlineNanos - System.nanoTime() > 0) {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                interrupted = true; // the close goes on: stopping half-way would leave queued waits and holds behind
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
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
