package io.github.redislock;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A distributed read-write lock: many readers or one writer, across every application instance.
 * Both sides are reentrant; the writer may also take the read lock (and keep it after releasing the
 * write lock: a downgrade). A reader cannot take the write lock (an upgrade would wait for itself).
 * Each owner's lease is kept apart, so one crashed reader's hold ends alone after its lease.
 */
public interface RedisReadWriteLock extends ReadWriteLock {

    @Override
    RedisLock readLock();

    @Override
    RedisLock writeLock();
}
