package io.github.redislock.core;

import io.github.redislock.Locker;
import io.github.redislock.core.script.LockKind;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/** Keys of a {@link RedisLocker} as one {@link Lock} of one kind, the calling thread the owner: what a lock view and a multi-lock share. */
abstract class KeysView implements Lock {

    final RedisLocker locker;
    final LockKind kind;
    /** One key, or a multi-lock's distinct valid keys in taking order. */
    final List<String> keys;

    KeysView(RedisLocker locker, LockKind kind, List<String> keys) {
        this.locker = locker;
        this.kind = kind;
        this.keys = keys;
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

    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return locker.take(kind, keys, waitTime, leaseTime, unit, true);
    }
}
