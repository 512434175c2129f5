package io.github.redislock.core;

import io.github.redislock.RedisLock;
import io.github.redislock.core.script.LockKeys;
import io.github.redislock.core.script.LockKind;

import java.util.Collections;
import java.util.concurrent.locks.Condition;

/** One key of a {@link RedisLocker} as a {@link RedisLock} of one kind; the calling thread is the owner. */
final class LockView extends KeysView implements RedisLock {

    private final String key;

    LockView(RedisLocker locker, LockKind kind, String key) {
        super(locker, kind, Collections.singletonList(key));
        LockKeys.validate(key);
        this.key = key;
    }

    @Override
    public String getKey() {
        return key;
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
