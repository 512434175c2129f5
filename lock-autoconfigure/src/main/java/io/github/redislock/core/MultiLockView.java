package io.github.redislock.core;

import io.github.redislock.RedisMultiLock;
import io.github.redislock.core.script.LockKind;

import java.util.List;
import java.util.concurrent.locks.Condition;

/** Several keys of a {@link RedisLocker} as one all-or-nothing lock; the calling thread is the owner. */
final class MultiLockView extends KeysView implements RedisMultiLock {

    /** @param keys distinct, valid, in taking order */
    MultiLockView(RedisLocker locker, List<String> keys) {
        super(locker, LockKind.PLAIN, List.copyOf(keys));
    }

    @Override
    public List<String> getKeys() {
        return keys;
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
