package io.github.redislock.core;

import io.github.redislock.Locker;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisMultiLock;
import io.github.redislock.core.script.LockKind;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * Keys of a {@link RedisLocker} as one lock of one kind, the calling thread the owner: one key of any
 * kind as a {@link Single} {@link RedisLock}, a multi-lock's keys as one all-or-nothing {@link Multi}
 * {@link RedisMultiLock}. Each is only the type it can honour: a multi-lock has no key of its own.
 */
abstract sealed class LockView {

    final RedisLocker locker;
    final LockKind kind;
    /** One key, or a multi-lock's distinct valid keys in taking order. */
    final List<String> keys;

    private LockView(RedisLocker locker, LockKind kind, List<String> keys) {
        this.locker = locker;
        this.kind = kind;
        this.keys = List.copyOf(keys);
    }

    public void lock() {
        locker.takeUninterruptibly(kind, keys, Locker.WAIT_FOREVER, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    public void lockInterruptibly() throws InterruptedException {
        locker.take(kind, keys, Locker.WAIT_FOREVER, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS, true);
    }

    public boolean tryLock() {
        return locker.takeUninterruptibly(kind, keys, 0, Locker.WATCHDOG_LEASE, TimeUnit.MILLISECONDS);
    }

    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return locker.take(kind, keys, Math.max(0, time), Locker.WATCHDOG_LEASE, unit, true);
    }

    public boolean tryLock(long waitTime, long leaseTime, TimeUnit unit) throws InterruptedException {
        return locker.take(kind, keys, waitTime, leaseTime, unit, true);
    }

    public void unlock() {
        locker.unlock(kind, keys, Duration.ZERO);
    }

    public Condition newCondition() {
        throw new UnsupportedOperationException("Distributed " + (this instanceof Multi ? "multi-lock " + keys : "lock '" + keys.get(0) + "'")
                + " does not support conditions");
    }

    static final class Single extends LockView implements RedisLock {

        Single(RedisLocker locker, LockKind kind, String key) {
            super(locker, kind, List.of(key));
        }

        @Override
        public String getKey() {
            return keys.get(0);
        }

        @Override
        public long fencingToken() {
            return locker.fencingToken(kind, getKey());
        }

        @Override
        public int getHoldCount() {
            return locker.holdCount(kind, getKey());
        }

        @Override
        public String toString() {
            return "RedisLock[" + kind.name().toLowerCase() + " " + getKey() + "]";
        }
    }

    static final class Multi extends LockView implements RedisMultiLock {

        Multi(RedisLocker locker, List<String> keys) {
            super(locker, LockKind.PLAIN, keys);
        }

        @Override
        public List<String> getKeys() {
            return keys;
        }

        @Override
        public long fencingToken(String key) {
            if (!keys.contains(key)) {
                throw new IllegalArgumentException("'" + key + "' is not one of the keys of " + this);
            }
            return locker.fencingToken(kind, key);
        }

        @Override
        public String toString() {
            return "RedisMultiLock" + keys;
        }
    }
}
