package io.github.redislock;


/**
 * Hears what the locks of one application instance do, so metrics and traces can be added without
 * the lock code knowing about them. The default, {@link #NONE}, does nothing and costs nothing; the
 * Micrometer implementation is auto-configured when Micrometer is present.
 *
 * <p>An internal SPI: its methods may change with the lock kinds. Every method is called on the
 * thread doing the work (the acquiring or releasing thread, or the watchdog; for an {@link AsyncLocker}
 * one of its own threads), so implementations must be fast. They should not throw; if one does, the
 * Locker logs it and the lock goes on as if it were not observed
 * ({@link io.github.redislock.observation.FailSafeLockObserver}).
 */
public interface LockObserver {

    /** Hears nothing. */
    LockObserver NONE = new LockObserver() {
    };

    /** A thread starts taking {@code lock} (its wait included); the returned handle hears how it ended. */
    default Acquisition acquisitionStarted(ObservedLock lock) {
        return Acquisition.NONE;
    }

    /**
     * An acquisition that waits without a thread ({@link AsyncLocker}): started on the caller's thread, it
     * ends on another one, so nothing may stay bound to the starting thread (no observation scope).
     */
    default Acquisition acquisitionStartedWithoutThread(ObservedLock lock) {
        return acquisitionStarted(lock);
    }

    /** The final hold of {@code lock} was released after {@code heldNanos}. */
    default void released(ObservedLock lock, long heldNanos) {
    }

    /**
     * A watchdog tick reached Redis.
     *
     * @param renewed locks whose lease was extended
     * @param lost    locks found no longer owned (each is also reported through {@link #lost})
     */
    default void renewed(int renewed, int lost) {
    }

    /** A watchdog tick could not reach Redis; {@code locks} went without renewal. */
    default void renewalFailed(int locks, Throwable cause) {
    }

    /**
     * {@code lock} was found gone before its holder unlocked it.
     *
     * @param byWatchdog true when a renewal found it, false when the holder's unlock did
     */
    default void lost(ObservedLock lock, boolean byWatchdog) {
    }

    /** How one acquisition ended; exactly one method is called, on the acquiring thread (for an {@link AsyncLocker}, one of its threads). */
    interface Acquisition {

        Acquisition NONE = new Acquisition() {
        };

        default void acquired() {
        }

        /** The wait ran out (or, for a try without waiting, the lock was held). */
        default void timedOut() {
        }

        /** Redis failed or the waiting thread was interrupted. */
        default void failed(Throwable cause) {
        }
    }

    /**
     * One lock as observers see it.
     *
     * @param key      the key the caller gave; high cardinality, never a metric tag
     * @param redisKey the Redis key of the lock
     * @param kind     the lock kind, e.g. {@code reentrant}
     * @param name     a low-cardinality name the caller gave (the annotated method), or null
     */
    record ObservedLock(String key, String redisKey, String kind, String name) {
    }
}
