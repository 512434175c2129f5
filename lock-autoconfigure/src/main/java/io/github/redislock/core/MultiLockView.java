package io.github.redislock.core;

import io.github.redislock.core.script.LockKind;
import io.github.redislock.Locker;
import io.github.redislock.RedisMultiLock;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/** Several keys of a {@link RedisLocker} as one all-or-nothing lock; the calling thread is the owner. */
final class MultiLockView implements RedisMultiLock {

    private final RedisLocker locker;
    private final List<String> keys;

    /** @param keys distinct, valid, in taking order */
    MultiLockView(RedisLocker locker, List<String> keys) {
        this.locker = locker;
        this.keys = List.copyOf(keys);
    }

    @Override
    public List<String> getKeys() {
        return keys;
    }

    @Override
    public void lock() {
        locker.lockUninterruptibly(LockKind.PLAIN, keys, Locker.WATCHDOG_LEASE);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        locker.lockInterruptibly(LockKind.PLAIN, keys);
    }

    @Override
    public boolean tryLock() {
        return locker.tryLock(LockKind.PLAIN, keys);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return locker.tryLock(LockKind.PLAIN, keys, Math.max(0, time), Locker.WATCHDOG_LEASE, unit);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return locker.tryLock(LockKind.PLAIN, keys, waitTime, leaseTime, unit);
    }

    @Override
    public void unlock() {
        locker.unlockAll(keys);
    }

    @Override
    public long fencingToken(String key) {
        if (!keys.contains(key)) {
            throw new IllegalArgumentException("'" + key + "' is not one of the keys of multi-lock " + keys);
        }
        return locker.fencingToken(LockKind.PLAIN, key);
    }

    /** Conditions would need a distributed wait set; not supported. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed multi-lock " + keys + " does not support conditions");
    }

    @Override
    public String toString() {
        return "RedisMultiLock" + keys;
    }
}
