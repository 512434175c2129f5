package io.github.redislock.core;

import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.LockHandle;

/** The {@link LockHandle} a {@link RedisAsyncLocker} issues; {@code issuer}'s client id is in its owner field. */
record Handle(String key, String id, RedisLocker issuer, AtomicLong token) implements LockHandle {

    Handle(String key, RedisLocker issuer) {
        this(Objects.requireNonNull(key, "key"), UUID.randomUUID().toString(), issuer, new AtomicLong());
    }

    /** The handle as {@code locker} issued it: another locker's names no owner here, and would start a second one. */
    static Handle of(LockHandle handle, RedisLocker locker) {
        Objects.requireNonNull(handle, "Lock handle must not be null");
        if (handle instanceof Handle own && own.issuer == locker) {
            return own;
        }
        throw new IllegalArgumentException("Lock handle " + handle + " of '" + handle.key() + "' was not issued by this "
                + (handle instanceof Handle ? "AsyncLocker (another locker, with another client id, issued it)" : "redis-lock AsyncLocker or ReactiveLocker")
                + "; acquire(key, ...) issues one");
    }

    @Override
    public long fencingToken() {
        long fencingToken = token.get();
        if (fencingToken == 0) {
            throw new IllegalStateException("Lock handle " + id + " of '" + key + "' holds nothing yet: no fencing token");
        }
        return fencingToken;
    }

    @Override
    public String toString() {
        return "LockHandle[" + key + ", " + id + "]";
    }
}
