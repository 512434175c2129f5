package io.github.redislock.integration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.function.LongSupplier;

import io.github.redislock.LockLostException;
import io.github.redislock.Locker;
import io.github.redislock.RedisLock;

/**
 * The lock of one key of a {@link LockerLockRegistry}: the Locker's plain lock for the calling thread,
 * with the registry's count of the thread's holds, which tells a re-entry from a first acquisition.
 *
 * <p>Why the count: a re-entry must not take a lock anew that was lost meanwhile. The Locker would
 * then hand out a fresh hold with a new fencing token, and a heartbeat that re-takes its lock (as
 * {@code LockRegistryLeaderInitiator}'s does) would go on leading, its one unlock per beat freeing the
 * lock for somebody else. A re-entry compares the hold's token before and after instead, and a
 * changed token, or a hold the watchdog already found gone (or the token's draw found gone), is
 * reported as the loss it is. The hold's first re-entry draws its token (one round trip), later ones find it kept.
 */
class RegistryLock implements RedisLock {

    /** One acquisition on the key's Locker. */
    @FunctionalInterface
    private interface Attempt {
        boolean run(Locker locker) throws InterruptedException;
    }

    private final LockerLockRegistry<?> registry;
    private final String key;

    RegistryLock(LockerLockRegistry<?> registry, String key) {
        this.registry = registry;
        this.key = key;
    }

    @Override
    public String getKey() {
        return key;
    }

    /** Takes the lock, waiting as long as needed and keeping an interrupt for later. */
    @Override
    public void lock() {
        try {
            acquire(Locker.WATCHDOG_LEASE, locker -> {
                locker.lock(key);
                return true;
            });
        } catch (InterruptedException e) {
            throw new AssertionError("An uninterruptible lock cannot be interrupted", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(Locker.WATCHDOG_LEASE, locker -> {
            locker.lockInterruptibly(key);
            return true;
        });
    }

    @Override
    public boolean tryLock() {
        try {
            return acquire(Locker.WATCHDOG_LEASE, locker -> locker.tryLock(key));
        } catch (InterruptedException e) {
            throw new AssertionError("A lock attempt without waiting cannot be interrupted", e);
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return acquire(Locker.WATCHDOG_LEASE, locker -> locker.tryLock(key, time, Locker.WATCHDOG_LEASE, unit));
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return acquire(leaseTime == Locker.WATCHDOG_LEASE || unit == null ? Locker.WATCHDOG_LEASE : unit.toMillis(leaseTime),
                locker -> locker.tryLock(key, waitTime, leaseTime, unit));
    }

    /**
     * Takes the lock, waiting as long as needed and keeping an interrupt for later, for {@code ttl}: a
     * lease, after which Redis frees the lock unless it was unlocked before. The watchdog does not renew
     * it (a {@code renewLock} call does). Spring Integration 7's {@code DistributedLock.lock(Duration)}.
     *
     * @throws IllegalArgumentException when {@code ttl} is not between 1 ms and 365 days (a lease's limits)
     */
    public void lock(Duration ttl) {
        checkPositive(ttl);
        long leaseMillis = saturated(ttl::toMillis);
        try {
            acquire(leaseMillis, locker -> {
                if (leaseMillis <= Integer.MAX_VALUE) {
                    locker.lock(key, TimeUnit.MILLISECONDS, (int) leaseMillis);
                } else { // over 24 days: whole seconds, up to the Locker's limit
                    locker.lock(key, TimeUnit.SECONDS, (int) Math.min(Integer.MAX_VALUE, TimeUnit.MILLISECONDS.toSeconds(leaseMillis)));
                }
                return true;
            });
        } catch (InterruptedException e) {
            throw new AssertionError("An uninterruptible lock cannot be interrupted", e);
        }
    }

    /**
     * Takes the lock if it becomes free within {@code waitTime} (zero or less: tries once), for
     * {@code ttl} as in {@link #lock(Duration)}. Spring Integration 7's {@code DistributedLock.tryLock(Duration, Duration)}.
     *
     * @throws IllegalArgumentException when {@code waitTime} is null or {@code ttl} is not between 1 ms and 365 days
     */
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        if (waitTime == null) {
            throw new IllegalArgumentException("The wait time for lock '" + key + "' must not be null");
        }
        checkPositive(ttl);
        long leaseNanos = saturated(ttl::toNanos);
        long waitNanos = waitTime.isNegative() ? 0 : saturated(waitTime::toNanos);
        return acquire(TimeUnit.NANOSECONDS.toMillis(leaseNanos), locker -> locker.tryLock(key, waitNanos, leaseNanos, TimeUnit.NANOSECONDS));
    }

    /** The Locker checks a lease's limits; a zero or negative one would mean "no lease" to it, so that is refused here. */
    private void checkPositive(Duration ttl) {
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("The time to live of lock '" + key + "' must be positive, but was " + ttl);
        }
    }

    /** Long.MAX_VALUE for a duration too long for the unit: as good as forever for a wait, and refused as a lease. */
    static long saturated(LongSupplier conversion) {
        try {
            return conversion.getAsLong();
        } catch (ArithmeticException tooLong) {
            return Long.MAX_VALUE;
        }
    }

    /**
     * Releases one hold.
     *
     * @throws LockLostException when the lock was lost before (the thread then holds nothing)
     * @throws IllegalMonitorStateException when the calling thread does not hold it
     */
    @Override
    public void unlock() {
        try {
            registry.lockerFor(key).unlock(key);
        } catch (IllegalMonitorStateException e) { // LockLostException too: the Locker holds nothing for the thread now
            registry.releasedOne(key, true);
            throw e;
        }
        registry.releasedOne(key, false);
    }

    /** Not supported: a condition would need a wait set shared by every instance. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Lock '" + key + "' of LockerLockRegistry has no conditions");
    }

    @Override
    public long fencingToken() {
        return registry.lockerFor(key).fencingToken(key);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return registry.lockerFor(key).isHeldByCurrentThread(key);
    }

    @Override
    public int getHoldCount() {
        return registry.lockerFor(key).getHoldCount(key);
    }

    /**
     * Runs {@code attempt}, which takes the lock for {@code leaseMillis} ({@link Locker#WATCHDOG_LEASE}: no
     * lease); a re-entry first checks that the hold it enters is still there.
     *
     * @throws LockLostException when this thread's hold was lost: it holds nothing then
     */
    private boolean acquire(long leaseMillis, Attempt attempt) throws InterruptedException {
        Locker locker = registry.lockerFor(key);
        boolean reentry = registry.localHolds(key) > 0;
        long token = 0;
        if (reentry) {
            try {
                token = locker.fencingToken(key); // drawn at the hold's first re-entry (a round trip that checks the hold), then kept
            } catch (LockLostException e) {
                dropLostHold(locker);
                throw LockerLockRegistry.lockLost(key, "the watchdog found it gone, or Redis no longer had it when its token was drawn");
            } catch (IllegalMonitorStateException e) { // the Locker forgot it: a first acquisition after all
                registry.releasedOne(key, true);
                reentry = false;
            }
        }
        if (!attempt.run(locker)) {
            if (reentry) { // another owner holds it in Redis: this thread's hold is gone for sure
                dropLostHold(locker);
            }
            return false;
        }
        if (reentry && locker.fencingToken(key) != token) {
            registry.releasedOne(key, true);
            locker.unlock(key); // the new hold Redis just gave
            throw LockerLockRegistry.lockLost(key, "Redis no longer had it (expired or deleted), so the re-entry would have taken it anew");
        }
        registry.heldOnceMore(key, leaseMillis);
        return true;
    }

    /** The Locker's unlock of a hold found lost forgets it (and says so with the exception we already throw). */
    private void dropLostHold(Locker locker) {
        registry.releasedOne(key, true);
        try {
            locker.unlock(key);
        } catch (IllegalMonitorStateException expected) {
            // LockLostException: the hold is forgotten now
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RegistryLock lock && lock.registry == registry && lock.key.equals(key);
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(registry) * 31 + key.hashCode();
    }

    @Override
    public String toString() {
        return "RegistryLock[" + key + "]";
    }
}
