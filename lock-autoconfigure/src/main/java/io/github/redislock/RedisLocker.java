package io.github.redislock;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

import io.github.redislock.waiting.ReleaseSubscriptions;
import io.github.redislock.watchdog.LockWatchdog;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The {@link Locker} of one application instance. Its client id, a random UUID, tells its owners
 * apart from those of every other instance: an owner is {@code <clientId>:<threadId>}.
 */
public class RedisLocker implements Locker, AutoCloseable {

    /** Longest lease accepted; longer ones are almost always a unit mistake. */
    static final long MAX_LEASE_MILLIS = TimeUnit.DAYS.toMillis(365);

    private static final Log log = LogFactory.getLog(RedisLocker.class);

    private final LockCommands commands;
    private final LockWatchdog watchdog;
    private final ReleaseSubscriptions subscriptions;
    private final String keyPrefix;
    private final ApplicationEventPublisher events;
    private final String clientId = UUID.randomUUID().toString();
    private final Map<Hold.Id, Hold> holds = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * @param keyPrefix prepended to every key to form its Redis key
     * @param events    receives {@link LockLostEvent}s
     */
    public RedisLocker(LockCommands commands, LockWatchdog watchdog, ReleaseSubscriptions subscriptions,
                       String keyPrefix, ApplicationEventPublisher events) {
        if (keyPrefix == null || keyPrefix.isBlank()) {
            throw new IllegalArgumentException("Lock key prefix must not be blank");
        }
        this.commands = Objects.requireNonNull(commands, "commands");
        this.watchdog = Objects.requireNonNull(watchdog, "watchdog");
        this.subscriptions = Objects.requireNonNull(subscriptions, "subscriptions");
        this.keyPrefix = keyPrefix;
        this.events = Objects.requireNonNull(events, "events");
    }

    /** This instance's id, the first part of every owner field it writes. */
    public String getClientId() {
        return clientId;
    }

    /** The prefix of every lock's Redis key. */
    public String getKeyPrefix() {
        return keyPrefix;
    }

    @Override
    public void lock(String key) {
        lockUninterruptibly(key, WATCHDOG_LEASE);
    }

    @Override
    public void lock(String key, int leaseSeconds) {
        lockUninterruptibly(key, leaseMillis(key, leaseSeconds, TimeUnit.SECONDS));
    }

    @Override
    public void lock(String key, TimeUnit unit, int leaseTime) {
        lockUninterruptibly(key, leaseMillis(key, leaseTime, unit));
    }

    @Override
    public void lockInterruptibly(String key) throws InterruptedException {
        acquire(keys(key), currentOwner(), WAIT_FOREVER, WATCHDOG_LEASE, true);
    }

    @Override
    public boolean tryLock(String key) {
        try {
            return acquire(keys(key), currentOwner(), 0, WATCHDOG_LEASE, false);
        } catch (InterruptedException e) {
            throw new AssertionError("A lock attempt without waiting cannot be interrupted", e);
        }
    }

    @Override
    public boolean tryLock(String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        LockKeys keys = keys(key);
        return acquire(keys, currentOwner(), waitNanos(key, waitTime, unit), leaseMillis(key, leaseTime, unit), true);
    }

    @Override
    public boolean tryLockAs(String ownerToken, String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        LockKeys keys = keys(key);
        return acquire(keys, tokenOwner(ownerToken), waitNanos(key, waitTime, unit), leaseMillis(key, leaseTime, unit), true);
    }

    @Override
    public void unlockAs(String ownerToken, String key) {
        release(keys(key), tokenOwner(ownerToken));
    }

    @Override
    public void unlock(String key) {
        release(keys(key), currentOwner());
    }

    private void release(LockKeys keys, String owner) {
        String key = keys.key();
        Hold hold = holds.get(new Hold.Id(keys.name(), owner));
        if (hold == null) {
            throw new IllegalMonitorStateException("Cannot unlock '" + key + "' (Redis key " + keys.name()
                    + "): it is not held by owner " + owner + " (calling thread " + Thread.currentThread().getName() + ")");
        }
        if (hold.lost) {
            forget(hold);
            throw lostException(hold, "the watchdog found it gone before the unlock");
        }
        boolean finalRelease = hold.count <= 1;
        if (finalRelease && hold.watched) {
            watchdog.unwatch(hold); // before the release: no renewal may follow a completed unlock
        }
        long remaining;
        try {
            remaining = commands.release(keys, owner, hold.watched ? watchdog.timeout().toMillis() : hold.leaseMillis);
        } catch (LockRedisException e) {
            if (finalRelease) {
                forget(hold); // no longer renewed: Redis frees it when its lease runs out
            }
            throw e;
        }
        if (remaining < 0) {
            forget(hold);
            throw lostException(hold, hold.leaseMillis > 0 ? "its lease of " + hold.leaseMillis + " ms expired" : "it expired or was deleted");
        }
        hold.count = remaining;
        if (remaining == 0) {
            forget(hold);
            log.debug("Released " + keys.name());
        } else if (finalRelease && hold.watched) {
            watchdog.watch(hold); // Redis counted more holds than we did; keep it alive
        }
    }

    @Override
    public boolean isLocked(String key) {
        return commands.exists(keys(key));
    }

    @Override
    public boolean isHeldByCurrentThread(String key) {
        return getHoldCount(key) > 0;
    }

    @Override
    public int getHoldCount(String key) {
        return commands.holdCount(keys(key), currentOwner());
    }

    @Override
    public Lock getLock(String key) {
        return new LockView(this, key);
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

    /** Locks this instance holds now, for diagnostics. */
    public int heldLockCount() {
        return holds.size();
    }

    /** Stops renewing; locks still held expire in Redis within the watchdog timeout. */
    @Override
    public void close() {
        closed = true;
        holds.values().forEach(watchdog::unwatch);
        holds.clear();
    }

    private void lockUninterruptibly(String key, long leaseMillis) {
        try {
            acquire(keys(key), currentOwner(), WAIT_FOREVER, leaseMillis, false);
        } catch (InterruptedException e) {
            throw new AssertionError("An uninterruptible wait cannot be interrupted", e);
        }
    }

    /**
     * Tries once, and while the lock is held elsewhere waits for its release message or for the
     * holder's lease to run out, whichever comes first, then tries again.
     *
     * @param waitNanos 0 tries once, {@link #WAIT_FOREVER} has no deadline
     */
    private boolean acquire(LockKeys keys, String owner, long waitNanos, long leaseMillis, boolean interruptible) throws InterruptedException {
        long redisLease = leaseMillis == WATCHDOG_LEASE ? watchdog.timeout().toMillis() : leaseMillis;
        Hold known = holds.get(new Hold.Id(keys.name(), owner));
        boolean firstHold = known == null || known.lost;
        LockCommands.Acquisition attempt = commands.acquire(keys, owner, redisLease, firstHold);
        if (attempt.acquired()) {
            return acquired(keys, owner, attempt.holdCount(), leaseMillis);
        }
        if (waitNanos == 0) {
            return false;
        }
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException("Interrupted before waiting for lock '" + keys.key() + "'");
        }
        long start = System.nanoTime();
        ReleaseSubscriptions.Waiting waiting;
        try {
            waiting = subscriptions.join(keys.channel());
        } catch (RuntimeException e) {
            throw new LockRedisException("Cannot subscribe to the release channel of lock " + keys.name() + ": " + LockCommands.rootMessage(e), e);
        }
        try (waiting) {
            while (true) {
                attempt = commands.acquire(keys, owner, redisLease, firstHold);
                if (attempt.acquired()) {
                    return acquired(keys, owner, attempt.holdCount(), leaseMillis);
                }
                long remaining = waitNanos == WAIT_FOREVER ? Long.MAX_VALUE : waitNanos - (System.nanoTime() - start);
                if (remaining <= 0) {
                    return false;
                }
                // The holder's lease bounds the wait: an expiry publishes nothing. A key without expiry was not set by us; look again after a watchdog period.
                long holderTtl = attempt.holderTtlMillis() >= 0 ? Math.max(1, attempt.holderTtlMillis()) : watchdog.timeout().toMillis();
                long park = Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(holderTtl));
                if (interruptible) {
                    awaitNamingTheLock(waiting, park, keys);
                } else {
                    waiting.awaitUninterruptibly(park);
                }
            }
        }
    }

    private static void awaitNamingTheLock(ReleaseSubscriptions.Waiting waiting, long nanos, LockKeys keys) throws InterruptedException {
        try {
            waiting.await(nanos);
        } catch (InterruptedException e) {
            InterruptedException named = new InterruptedException("Interrupted while waiting for lock '" + keys.key() + "'");
            named.initCause(e);
            throw named;
        }
    }

    private boolean acquired(LockKeys keys, String owner, long holdCount, long leaseMillis) {
        Hold.Id id = new Hold.Id(keys.name(), owner);
        Hold hold = holds.get(id);
        if (holdCount == 1 || hold == null) {
            if (hold != null) {
                forget(hold); // a hold lost earlier and never unlocked
            }
            hold = new Hold(keys, owner, holdCount, leaseMillis, this::publishLost);
            holds.put(id, hold);
        } else {
            hold.count = holdCount;
            hold.leaseMillis = leaseMillis;
        }
        if (leaseMillis == WATCHDOG_LEASE && !hold.watched) {
            hold.watched = true;
            watchdog.watch(hold);
        }
        if (log.isDebugEnabled()) {
            log.debug("Acquired " + keys.name() + " (hold " + holdCount + ", " + (leaseMillis == WATCHDOG_LEASE ? "watchdog" : "lease " + leaseMillis + " ms") + ")");
        }
        return true;
    }

    private void forget(Hold hold) {
        holds.remove(hold.id(), hold);
        if (hold.watched) {
            watchdog.unwatch(hold);
        }
    }

    private void publishLost(Hold hold) {
        events.publishEvent(new LockLostEvent(this, hold.keys.key(), hold.keys.name(), hold.owner));
    }

    private LockLostException lostException(Hold hold, String why) {
        return new LockLostException(hold.keys.key(), "Lock '" + hold.keys.key() + "' (Redis key " + hold.keys.name()
                + ") was lost before owner " + hold.owner + " unlocked it: " + why
                + ". Another owner may have held it meanwhile.");
    }

    private LockKeys keys(String key) {
        if (closed) {
            throw new IllegalStateException("Locker is closed (its application context has shut down); cannot use lock '" + key + "'");
        }
        return LockKeys.of(keyPrefix, key);
    }

    private String currentOwner() {
        return clientId + ":" + Thread.currentThread().getId();
    }

    /** A token owner's field; the '~' keeps it apart from every thread owner's numeric id. */
    private String tokenOwner(String ownerToken) {
        if (ownerToken == null || ownerToken.isBlank() || ownerToken.length() > 200) {
            throw new IllegalArgumentException("Owner token must be 1 to 200 non-blank characters, but was "
                    + (ownerToken == null ? "null" : "'" + ownerToken + "'"));
        }
        return clientId + ":~" + ownerToken;
    }

    private static long leaseMillis(String key, long leaseTime, TimeUnit unit) {
        Objects.requireNonNull(unit, () -> "TimeUnit for lock '" + key + "' must not be null");
        if (leaseTime == WATCHDOG_LEASE) {
            return WATCHDOG_LEASE;
        }
        if (leaseTime <= 0) {
            throw new IllegalArgumentException("Lease time for lock '" + key + "' must be positive, or -1 for the watchdog, but was " + leaseTime + " " + unit);
        }
        long millis = unit.toMillis(leaseTime);
        if (millis == 0 || millis > MAX_LEASE_MILLIS) {
            throw new IllegalArgumentException("Lease time for lock '" + key + "' must be between 1 ms and 365 days, but was " + leaseTime + " " + unit);
        }
        return millis;
    }

    private static long waitNanos(String key, long waitTime, TimeUnit unit) {
        Objects.requireNonNull(unit, () -> "TimeUnit for lock '" + key + "' must not be null");
        if (waitTime == WAIT_FOREVER) {
            return WAIT_FOREVER;
        }
        if (waitTime < 0) {
            throw new IllegalArgumentException("Wait time for lock '" + key + "' must be 0 or more, or -1 to wait as long as it takes, but was " + waitTime + " " + unit);
        }
        return unit.toNanos(waitTime); // saturates at Long.MAX_VALUE, which waits as good as forever
    }
}
