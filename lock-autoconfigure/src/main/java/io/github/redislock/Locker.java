package io.github.redislock;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Reentrant distributed locks on Redis, shared by every instance of the application that uses the
 * same Redis and key prefix.
 *
 * <p>A lock belongs to the calling thread of this application instance: the thread that took it is
 * the only one that can release it, and it can take it again (each {@code lock} needs its own
 * {@code unlock}). A lock taken without a lease is kept alive by the watchdog until it is unlocked,
 * so it survives long critical sections and still frees itself within the watchdog timeout when the
 * instance dies. A lock taken with a lease expires after it, whether or not it was unlocked.
 *
 * <p>Waiting is event driven: a blocked caller is woken by the release message of the holder, or
 * when the holder's lease runs out, never by polling.
 *
 * <p><b>What every method throws.</b> {@link IllegalArgumentException} for a null or blank key, or one
 * longer than 1,024 characters; {@link LockRedisException}, naming the lock's Redis key, when a Redis
 * command fails or gets no answer within the client's command timeout (a Redlock acquisition counts such
 * a master as failed and tries again; its unlock throws it when too few masters answer to tell); {@link IllegalStateException}
 * for a new acquisition once the Locker is closed (its application context has shut down). The
 * methods below name what they throw besides.
 */
public interface Locker {

    /** A lease of this value means "no lease": the watchdog keeps the lock until it is unlocked. */
    long WATCHDOG_LEASE = -1;

    /** A wait of this value means "wait as long as it takes". */
    long WAIT_FOREVER = -1;

    /** Takes the lock, waiting as long as needed; the watchdog keeps it alive until {@link #unlock}. Ignores interrupts (the flag is kept). */
    default void lock(String key) {
        lock(key, TimeUnit.MILLISECONDS, (int) WATCHDOG_LEASE);
    }

    /** Takes the lock, waiting as long as needed; it expires after {@code leaseSeconds} unless unlocked before. */
    default void lock(String key, int leaseSeconds) {
        lock(key, TimeUnit.SECONDS, leaseSeconds);
    }

    /**
     * Takes the lock, waiting as long as needed; it expires after {@code leaseTime} in {@code unit}, or -1 for the watchdog.
     *
     * @throws IllegalArgumentException when {@code leaseTime} is neither -1 nor between 1 ms and 365 days
     * @throws NullPointerException     when {@code unit} is null
     */
    void lock(String key, TimeUnit unit, int leaseTime);

    /**
     * Like {@link #lock(String)}, but gives up with {@link InterruptedException} when the thread is
     * interrupted while waiting, or was interrupted already (then even a free lock is not taken).
     */
    default void lockInterruptibly(String key) throws InterruptedException {
        tryLock(key, WAIT_FOREVER, WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    /** Takes the lock if it is free right now (one round trip, no waiting); the watchdog keeps it alive. */
    boolean tryLock(String key);

    /**
     * Takes the lock if it becomes free within {@code waitTime}.
     *
     * @param waitTime  how long to wait; 0 tries once, -1 waits as long as it takes
     * @param leaseTime how long the lock lives unless unlocked before; -1 lets the watchdog keep it until unlocked
     * @return whether the lock was taken
     * @throws InterruptedException when the thread is interrupted while waiting, or was on entry (nothing is left held or subscribed)
     * @throws IllegalArgumentException when {@code waitTime} is below -1, or {@code leaseTime} is neither -1 nor between 1 ms and 365 days
     * @throws NullPointerException when {@code unit} is null
     */
    boolean tryLock(String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /**
     * Releases one hold of the lock; the lock is free once every hold is released.
     *
     * @throws LockLostException when this thread held the lock but it expired or was deleted before the unlock
     * @throws IllegalMonitorStateException when this thread does not hold the lock
     */
    default void unlock(String key) {
        unlock(key, Duration.ZERO);
    }

    /**
     * Releases one hold like {@link #unlock(String)}, except that the final release of a lock taken
     * less than {@code holdAtLeast} ago does not free it: the lock stays in Redis, owned by nobody and
     * renewed by nobody, until {@code holdAtLeast} after it was taken, and then ends by itself. Until
     * then every owner's attempt fails, this thread's too (its next {@code tryLock} on the key waits or
     * fails like any other: the lock is no longer its own), and no waiter is handed it; waiters take
     * it once it ended. For work that must not start again anywhere within {@code holdAtLeast} of its
     * start, such as a scheduled job on instances whose clocks differ (see {@code docs/scheduling.md}).
     *
     * <p>The time since the lock was taken is measured on this instance's monotonic clock and the rest
     * is sent to Redis as a relative expiry, so no clock skew between hosts shortens or lengthens it.
     * A release after {@code holdAtLeast}, or of a re-entered hold, is a plain {@link #unlock(String)}.
     * A lock taken with a lease is kept no longer than that lease. Only a plain lock can be kept: a fair,
     * read or write hold of the key is refused before anything is released.
     *
     * @param holdAtLeast 0 or more; 0 is {@link #unlock(String)}
     * @throws IllegalArgumentException when {@code holdAtLeast} is null or negative (nothing is released)
     * @throws IllegalStateException    when {@code holdAtLeast} is not 0 and the calling thread holds the key as a fair lock, or as
     *                                  the read or write lock of a read-write lock, naming the key and kind (nothing is released)
     * @throws LockLostException        as {@link #unlock(String)}
     * @throws IllegalMonitorStateException as {@link #unlock(String)}
     */
    void unlock(String key, Duration holdAtLeast);

    /**
     * Takes the lock on behalf of {@code ownerToken} instead of the calling thread, for work that starts
     * on one thread and completes on another (a future, a reactive stream): any thread may release it
     * with {@link #unlockAs}. Reentrant per token. Use a token unique to the unit of work, e.g. a UUID.
     *
     * @throws IllegalArgumentException when {@code ownerToken} is not 1 to 200 non-blank characters, and as
     *                                  {@link #tryLock(String, long, long, TimeUnit)}
     * @see #tryLock(String, long, long, TimeUnit)
     */
    boolean tryLockAs(String ownerToken, String key, long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /** Releases one hold of a lock taken with {@link #tryLockAs}; same exceptions as {@link #unlock}. */
    default void unlockAs(String ownerToken, String key) {
        unlockAs(ownerToken, key, Duration.ZERO);
    }

    /** Releases one hold of a lock taken with {@link #tryLockAs}, keeping it like {@link #unlock(String, Duration)}. */
    void unlockAs(String ownerToken, String key, Duration holdAtLeast);

    /** Whether anybody, in any application instance, holds the lock now. */
    boolean isLocked(String key);

    /** Whether the calling thread of this instance holds the lock now, as Redis sees it. */
    default boolean isHeldByCurrentThread(String key) {
        return getHoldCount(key) > 0;
    }

    /** How many times the calling thread holds the lock (0 when it does not), as Redis sees it. */
    int getHoldCount(String key);

    /**
     * The fencing token of the calling thread's hold on the lock; see {@link RedisLock#fencingToken()},
     * also for its clock assumption (tokens rise only while the Redis server's clock does not step back)
     * and for the hold's first ask, which may block for one round trip to Redis.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     * @throws LockLostException            when the hold is known lost, or the first ask found Redis no longer has it
     */
    long fencingToken(String key);

    /** The lock of one key as a {@link java.util.concurrent.locks.Lock} (no conditions), with its fencing token. */
    RedisLock getLock(String key);

    /**
     * A fair lock: waiters from every instance queue in Redis and get the lock in the order they asked
     * for it. Costs more than {@link #getLock} (a queue in Redis, a wake-up channel per waiter); use it
     * only where starvation matters. Do not mix it with the plain lock methods on the same key: they
     * share the lock but not the queue.
     */
    RedisLock getFairLock(String key);

    /** A read-write lock: many readers or one writer, across every instance; see {@link RedisReadWriteLock}. */
    RedisReadWriteLock getReadWriteLock(String key);

    /**
     * Several keys as one lock, taken all or nothing; see {@link RedisMultiLock}. Duplicate keys count once.
     *
     * @throws IllegalArgumentException when no key is given or a key is invalid
     */
    RedisMultiLock getMultiLock(String... keys);

    /**
     * Runs {@code action} under the lock and always releases it afterwards. A {@code Duration} has no "-1 = forever": wait
     * as long as it takes with {@code ChronoUnit.FOREVER.getDuration()}.
     *
     * @throws LockAcquisitionException when the lock did not become free within {@code waitTime}, or the thread was interrupted
     *                                  while waiting (its interrupt flag is set again; the action does not run)
     * @throws IllegalArgumentException when {@code waitTime} is negative
     * @throws NullPointerException     when {@code waitTime} or {@code action} is null
     * @throws LockLostException        when the action ran but the lock expired or was deleted before the release
     */
    default <T> T withLock(String key, Duration waitTime, Supplier<T> action) {
        Objects.requireNonNull(waitTime, () -> "Wait time for lock '" + key + "' must not be null");
        if (waitTime.isNegative()) { // -1 ms would reach tryLock as its WAIT_FOREVER
            throw new IllegalArgumentException("Wait time for lock '" + key + "' must be 0 or more (ChronoUnit.FOREVER.getDuration() waits as long as it takes), but was " + waitTime);
        }
        Objects.requireNonNull(action, () -> "Action for lock '" + key + "' must not be null");
        boolean acquired;
        try {
            // a wait too long for a long of ms (ChronoUnit.FOREVER) is as good as forever, not an overflow
            long waitMillis = waitTime.compareTo(Duration.ofMillis(Long.MAX_VALUE)) < 0 ? waitTime.toMillis() : Long.MAX_VALUE;
            acquired = tryLock(key, waitMillis, WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
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

    /** Like {@link #withLock(String, Duration, Supplier)} for an action with no result. */
    default void withLock(String key, Duration waitTime, Runnable action) {
        withLock(key, waitTime, () -> {
            action.run();
            return null;
        });
    }
}
