package io.github.redislock.integration;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.redislock.LockLostException;
import io.github.redislock.Locker;
import io.github.redislock.RedisLock;
import io.github.redislock.leader.FencingTokenLockers;

import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.util.ClassUtils;

/**
 * Spring Integration's {@code LockRegistry} on a {@link Locker}: {@link #obtain} gives the reentrant
 * lock of a key, owned by the calling thread of this application instance, with the Locker's watchdog,
 * queued hand-off and fencing token. Aggregators, idempotent receivers, message stores and
 * {@code LockRegistryLeaderInitiator} then run on the same locks as {@code @DistributedLock}.
 *
 * <p>Where it differs from {@code RedisLockRegistry}: a held lock does not expire while its instance
 * lives (the watchdog renews it), and frees itself within the Locker's watchdog timeout when the
 * instance dies; a thread that unlocks a lock it does not hold gets {@link IllegalMonitorStateException},
 * and one whose lock was lost meanwhile {@link LockLostException} (a subclass of it).
 *
 * <p>A thread whose hold was lost (expired during a pause, deleted) learns of it when it takes the lock
 * again: instead of a silent new hold, the re-entry fails with {@link LockLostException} and leaves nothing
 * held, so a {@code LockRegistryLeaderInitiator} revokes its leadership at its next heartbeat.
 *
 * <p>The registry keeps no per-key objects ({@code obtain} returns a new view, equal to every other view
 * of the same key in this registry), so there is nothing to expire: it is not an {@code ExpirableLockRegistry}.
 * Compiled against Spring Integration 7, whose registries are generic; the same class runs on 6.5,
 * whose are not (the type argument is then only a compile-time note, and {@link #renewLock(Object, Duration)}
 * a method of this class alone).
 *
 * <p>Where Spring Integration 7's {@code DistributedLock} exists (the Spring Boot 4 line), every lock it
 * hands out is a {@link DistributedRedisLock}, with a time to live per use that is a lease of ours:
 * declare it as {@code LockerLockRegistry<DistributedRedisLock>} there (the auto-configured bean is one).
 * On Spring Integration 6.5 its locks are {@link RedisLock}s: {@code LockerLockRegistry<RedisLock>}.
 *
 * @param <L> the type of its locks: {@link RedisLock}, or {@link DistributedRedisLock} on Spring Integration 7
 */
public class LockerLockRegistry<L extends RedisLock> implements RenewableLockRegistry<L> {

    /** Whether Spring Integration 7's DistributedLock is there: the locks then implement it. */
    private static final boolean DISTRIBUTED_LOCKS = ClassUtils.isPresent("org.springframework.integration.support.locks.DistributedLock",
            LockerLockRegistry.class.getClassLoader());

    private final Function<String, Locker> lockers;
    /** Per thread: key -> the hold this thread took through this registry and has not released. */
    private final ThreadLocal<Map<String, ThreadHold>> holds = ThreadLocal.withInitial(HashMap::new);

    /**
     * How many times the thread took a key's lock, and for which lease: {@link Locker#WATCHDOG_LEASE} once
     * any of them was taken without one (the Locker's watchdog keeps the lock then), else the longest.
     * A renewal without a time to live must renew a lease as the lease it is, not hand it to the watchdog.
     */
    private static final class ThreadHold {
        int count;
        long leaseMillis;

        ThreadHold(long leaseMillis) {
            this.leaseMillis = leaseMillis;
        }

        void enteredAgain(long leaseMillis) {
            count++;
            if (this.leaseMillis != Locker.WATCHDOG_LEASE) {
                this.leaseMillis = leaseMillis == Locker.WATCHDOG_LEASE ? leaseMillis : Math.max(this.leaseMillis, leaseMillis);
            }
        }
    }

    /**
     * Every key's lock on {@code locker}.
     *
     * @throws IllegalArgumentException when {@code locker} gives no fencing tokens (Redlock): see {@link FencingTokenLockers}
     */
    public LockerLockRegistry(Locker locker) {
        this(key -> locker);
        FencingTokenLockers.require(Objects.requireNonNull(locker, "locker"), "LockerLockRegistry");
    }

    /**
     * Each key's lock on the Locker that {@code lockers} picks for it, e.g. one whose watchdog timeout
     * is a short leadership lease for the keys that are leader roles.
     */
    public LockerLockRegistry(Function<String, Locker> lockers) {
        this.lockers = Objects.requireNonNull(lockers, "lockers");
    }

    /**
     * The lock of {@code lockKey}, a String (as {@code RedisLockRegistry} requires too).
     *
     * @throws IllegalArgumentException when the key is not a non-blank String
     */
    @Override
    @SuppressWarnings("unchecked") // L is RedisLock, or DistributedRedisLock where that type loads (see the class comment)
    public L obtain(Object lockKey) {
        String key = key(lockKey);
        lockerFor(key);
        RegistryLock lock = DISTRIBUTED_LOCKS ? DistributedRegistryLock.of(this, key) : new RegistryLock(this, key);
        return (L) lock;
    }

    /**
     * Renews the calling thread's lock of {@code lockKey} now to the Locker's full watchdog timeout.
     * The watchdog renews it anyway every third of that; this is for a caller that wants it now.
     * A lock taken for a lease (a time to live) is renewed for that lease again and stays one: the
     * watchdog still leaves it alone, so it ends when the lease runs out.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock through this registry
     * @throws LockLostException when the lock was lost before the renewal (nothing is left held then)
     */
    @Override
    public void renewLock(Object lockKey) {
        String key = key(lockKey);
        ThreadHold held = holds.get().get(key);
        renew(key, held == null ? Locker.WATCHDOG_LEASE : held.leaseMillis);
    }

    /**
     * Makes the calling thread's lock of {@code lockKey} live at least {@code ttl} from now, even if this
     * instance dies meanwhile. A renewal never shortens the lock's life, nor takes a lock from the watchdog or gives it one.
     *
     * @throws IllegalArgumentException when {@code ttl} is not between 1 ms and 365 days (a lease's limits), naming the key
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock through this registry
     * @throws LockLostException when the lock was lost before the renewal (nothing is left held then)
     */
    public void renewLock(Object lockKey, Duration ttl) {
        String key = key(lockKey);
        if (ttl == null || ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("The time to live to renew lock '" + key + "' with must be positive, but was " + ttl);
        }
        renew(key, RegistryLock.saturated(ttl::toMillis)); // too long for a long: refused as a lease, naming the key
    }

    /** A re-entry with the lease and its release: the acquisition lengthens the lock's life, the release keeps it. */
    private void renew(String key, long leaseMillis) {
        if (localHolds(key) == 0) {
            throw new IllegalMonitorStateException("Cannot renew lock '" + key + "': the calling thread ("
                    + Thread.currentThread().getName() + ") does not hold it through this registry");
        }
        RegistryLock lock = new RegistryLock(this, key);
        try {
            if (!lock.tryLock(0, leaseMillis, TimeUnit.MILLISECONDS)) {
                throw lockLost(key, "another owner holds it now");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while renewing lock '" + key + "'", e);
        }
        lock.unlock();
    }

    Locker lockerFor(String key) {
        return FencingTokenLockers.require(lockers.apply(key), "Lock '" + key + "' of LockerLockRegistry");
    }

    /** How many holds of {@code key} the calling thread took through this registry and has not released. */
    int localHolds(String key) {
        ThreadHold held = holds.get().get(key);
        return held == null ? 0 : held.count;
    }

    /** One hold more, taken for {@code leaseMillis} ({@link Locker#WATCHDOG_LEASE}: none, the watchdog keeps it). */
    void heldOnceMore(String key, long leaseMillis) {
        holds.get().computeIfAbsent(key, first -> new ThreadHold(leaseMillis)).enteredAgain(leaseMillis);
    }

    /** One hold fewer; {@code all} when the thread has no hold left at all (its hold was lost). */
    void releasedOne(String key, boolean all) {
        Map<String, ThreadHold> held = holds.get();
        ThreadHold hold = held.get(key);
        if (hold != null && (all || hold.count <= 1)) {
            held.remove(key);
        } else if (hold != null) {
            hold.count--;
        }
        if (held.isEmpty()) {
            holds.remove();
        }
    }

    static LockLostException lockLost(String key, String why) {
        return new LockLostException(key, "Lock '" + key + "' was lost before the calling thread (" + Thread.currentThread().getName()
                + ") took it again: " + why + ". Another owner may have held it meanwhile; nothing is held now.");
    }

    private static String key(Object lockKey) {
        if (!(lockKey instanceof String key) || key.isBlank()) {
            throw new IllegalArgumentException("A lock key of LockerLockRegistry must be a non-blank String, but was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName() + " '" + lockKey + "'"));
        }
        return key;
    }

    @Override
    public String toString() {
        return "LockerLockRegistry";
    }
}
