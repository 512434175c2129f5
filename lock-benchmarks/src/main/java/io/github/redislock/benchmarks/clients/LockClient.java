package io.github.redislock.benchmarks.clients;

import java.util.Optional;

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

    /**
     * The Redis key of the list in which the library queues the waiters of {@code key}, oldest first, when
     * it keeps one; empty when its waiters keep no order in Redis.
     */
    default Optional<String> waitQueueKey(String key) {
        return Optional.empty();
    }

    @Override
    void close();
}
