package io.github.redislock.core;

import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;
import io.github.redislock.Locker;
import io.github.redislock.RedisLock;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/** One key of a {@link RedisLocker} as a {@link RedisLock} of one kind; the calling thread is the owner. */
final class LockView implements RedisLock {

    private final RedisLocker locker;
    private final LockKind kind;
    private final String key;
    private final List<String> keys;

    LockView(RedisLocker locker, LockKind kind, String key) {
        LockKeys.validate(key);
        this.locker = locker;
        this.kind = kind;
        this.key = key;
        this.keys = Collections.singletonList(key);
    }

    @Override
    public String getKey() {
        return key;
    }

    @Override
    public void lock() {
        locker.lockUninterruptibly(kind, keys, Locker.WATCHDOG_LEASE);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        locker.lockInterruptibly(kind, keys);
    }

    @Override
    public boolean tryLock() {
        return locker.tryLock(kind, keys);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return locker.tryLock(kind, keys, Math.max(0, time), Locker.WATCHDOG_LEASE, unit);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return locker.tryLock(kind, keys, waitTime, leaseTime, unit);
    }

    @Override
    public void unlock() {
        locker.unlock(kind, key);
    }

    @Override
    public long fencingToken() {
        return locker.fencingToken(kind, key);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return getHoldCount() > 0;
    }

    @Override
    public int getHoldCount() {
        return locker.holdCount(kind, key);
    }

    /** Conditions would need a distributed wait set; not supported. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed lock '" + key + "' does not support conditions");
    }

    @Override
    public String toString() {
        return "RedisLock[" + kind.name().toLowerCase() + " " + key + "]";
    }
}
