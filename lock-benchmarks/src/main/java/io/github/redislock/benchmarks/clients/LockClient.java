package io.github.redislock.benchmarks.clients;

/**
 * One application instance's use of a lock library: its own connections and client identity. All
 * calls wait as long as it takes and are made by the thread that will unlock.
 */
public interface LockClient extends AutoCloseable {

    /** The library's everyday blocking {@code lock}: its default lease or watchdog. */
    void lock(String key);

    void unlock(String key);

    /** A lock kept alive by the library's automatic renewal until {@link #unlockRenewed}. */
    void lockRenewed(String key);

    default void unlockRenewed(String key) {
        unlock(key);
    }

    @Override
    void close();
}
