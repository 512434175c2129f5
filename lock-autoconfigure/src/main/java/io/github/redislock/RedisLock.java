package io.github.redislock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * One distributed lock as a {@link Lock}: a plain or fair lock, or one side of a read-write lock.
 * The calling thread of this application instance is the owner; conditions are not supported.
 */
public interface RedisLock extends Lock {

    /** The lock key as given (without the key prefix). */
    String getKey();

    /**
     * The fencing token of the calling thread's hold: a number drawn in Redis once per hold (re-entering
     * keeps it) that is larger than every token handed out for this key before. Pass it to
     * the resource the lock protects and let the resource refuse writes carrying a smaller token than
     * one it has seen, so a holder that lost the lock during a pause cannot overwrite a newer holder's work.
     *
     * <p><b>When it is drawn, and when this call blocks.</b> A plain lock taken free on a thread draws no
     * token with its acquisition (most holders never ask): this call, the hold's first ask, draws it in one
     * round trip to Redis, in a script that also checks Redis still has the hold, and keeps it, so later
     * calls (and re-entries) answer at once. Every other acquisition draws it in its own script (a fair or
     * read-write lock, a multi-lock, a hand-off, a restarted count). Holds of one key never overlap in Redis
     * and each draw happens inside its hold, so a later holder's token is larger whether or not those
     * between asked.
     *
     * <p><b>Clock assumption.</b> A token is the Redis server's clock in microseconds when drawn
     * ({@code TIME}; for fair and read-write locks it seeds their counter when none is left); a lock handed
     * to a queued waiter gets the greater of the releasing holder's token plus one and the clock. Tokens therefore rise only as long as
     * the clock of the server that draws one is not behind the clock that drew the previous one. A clock
     * stepped back, or a failover to a replica whose clock is behind the old master's, can hand out a
     * smaller token than one the resource has already accepted: the resource then refuses a rightful
     * holder (never lets a stale one in). Keep the Redis servers' clocks synchronised (NTP, slewing rather
     * than stepping) and, after a failover to a server whose clock was behind, let the resource accept
     * again from a new baseline once no old holder can still write (after the longest lease).
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold this lock
     * @throws LockLostException            when the watchdog already found the hold gone, or the first ask found Redis no longer has it
     * @throws LockRedisException           when the first ask gets no answer from Redis
     */
    long fencingToken();

    /**
     * Takes the lock if it becomes free within {@code waitTime}.
     *
     * @param waitTime  how long to wait; 0 tries once, -1 waits as long as it takes
     * @param leaseTime how long the hold lives unless unlocked before; -1 lets the watchdog keep it until unlocked
     */
    boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException;

    /** Whether the calling thread holds this lock now, as Redis sees it. */
    default boolean isHeldByCurrentThread() {
        return getHoldCount() > 0;
    }

    /** How many times the calling thread holds this lock (0 when it does not), as Redis sees it. */
    int getHoldCount();
}
