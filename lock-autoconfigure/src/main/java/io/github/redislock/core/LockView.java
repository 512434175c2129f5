package io.github.redislock.core;

import io.github.redislock.Locker;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisMultiLock;
import io.github.redislock.core.script.LockKind;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * Keys of a {@link RedisLocker} as one lock of one kind, the calling thread the owner: one key of any
 * kind as a {@link RedisLock}, a multi-lock's keys as one all-or-nothing {@link RedisMultiLock}.
 */
final class LockView implements RedisLock, RedisMultiLock {

    private final RedisLocker locker;
    private final LockKind kind;
    /** One key, or a multi-lock's distinct valid keys in taking order. */
    private final List<String> keys;
    private final boolean multi;

    LockView(RedisLocker locker, LockKind kind, List<String> keys, boolean multi) {
        this.locker = locker;
        this.kind = kind;
        this.keys = List.copyOf(keys);
        this.multi = multi;
    }

    @Override
    public void lock() {
        locker.takeUninterruptibly(kind, keys, Locker.WAIT_FOREVER, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        locker.take(kind, keys, Locker.WAIT_FOREVER, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS, true);
    }

    @Override
    public boolean tryLock() {
        return locker.takeUninterruptibly(kind, keys, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return locker.take(kind, keys, Math.max(0, time), Locker.WATCHDOG_LEASE, unit, true);
    }

    @Override
    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return locker.take(kind, keys, waitTime, leaseTime, unit, true);
    }

    @Override
    public void unlock() {
        locker.unlock(kind, keys);
    }

    @Override
    public String getKey() {
        return key();
    }

    @Override
    public List<String> getKeys() {
        return keys;
    }

    @Override
    public long fencingToken() {
        return locker.fencingToken(kind, key());
    }

    @Override
    public long fencingToken(String key) {
        if (!keys.contains(key)) {
            throw new IllegalArgumentException("'" + key + "' is not one of the keys of " + this);
        }
        return locker.fencingToken(kind, key);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return getHoldCount() > 0;
    }

    @Override
    public int getHoldCount() {
        return locker.holdCount(kind, key());
    }

    /** Conditions would need a distributed wait set; not supported. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed " + (multi ? "multi-lock " + keys : "lock '" + keys.get(0) + "'") + " does not support conditions");
    }

    /** The one key of a single lock; a multi-lock has none of its own. */
    private String key() {
        if (multi) {
            throw new UnsupportedOperationException(this + " has several keys: use getKeys() and fencingToken(key)");
        }
        return keys.get(0);
    }

    @Override
    public String toString() {
        return multi ? "RedisMultiLock" + keys : "RedisLock[" + kind.name().toLowerCase() + " " + keys.get(0) + "]";
    }
}
