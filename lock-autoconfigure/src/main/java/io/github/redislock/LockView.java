package io.github.redislock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/** One key of a {@link Locker} seen as a {@link Lock}; the calling thread is the owner, as with the Locker. */
final class LockView implements Lock {

    private final Locker locker;
    private final String key;

    LockView(Locker locker, String key) {
        LockKeys.validate(key);
        this.locker = locker;
        this.key = key;
    }

    @Override
    public void lock() {
        locker.lock(key);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        locker.lockInterruptibly(key);
    }

    @Override
    public boolean tryLock() {
        return locker.tryLock(key);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return locker.tryLock(key, Math.max(0, time), Locker.WATCHDOG_LEASE, unit);
    }

    @Override
    public void unlock() {
        locker.unlock(key);
    }

    /** Conditions would need a distributed wait set; not supported. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed lock '" + key + "' does not support conditions");
    }

    @Override
    public String toString() {
        return "RedisLock[" + key + "]";
    }
}
