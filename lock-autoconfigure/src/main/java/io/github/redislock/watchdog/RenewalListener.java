package io.github.redislock.watchdog;

/**
 * Hears the outcome of every watchdog tick, for metrics. Called on the watchdog thread; must be fast
 * and must not throw.
 */
public interface RenewalListener {

    /** Hears nothing; the default, so a watchdog without metrics pays nothing. */
    RenewalListener NONE = new RenewalListener() {
    };

    /**
     * A tick reached Redis.
     *
     * @param renewed locks whose lease was extended
     * @param lost    locks found no longer owned (each is also reported through {@link WatchedLock#lost()})
     */
    default void renewed(int renewed, int lost) {
    }

    /** A tick could not reach Redis; {@code locks} went without renewal. */
    default void renewalFailed(int locks, Throwable cause) {
    }
}
