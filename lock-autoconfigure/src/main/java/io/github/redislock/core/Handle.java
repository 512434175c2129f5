package io.github.redislock.core;

import java.util.Objects;
import java.util.UUID;

import io.github.redislock.LockHandle;

/** The {@link LockHandle} a {@link RedisAsyncLocker} issues: its key, its owner id and its latest fencing token. */
final class Handle implements LockHandle {

    private final String key;
    private final String id;
    /** The fencing token of the handle's current hold; 0 before its first acquisition. */
    private volatile long fencingToken;

    Handle(String key) {
        this.key = Objects.requireNonNull(key, "key");
        this.id = UUID.randomUUID().toString();
    }

    /** The handle as this package issued it; a handle of another implementation names no owner here. */
    static Handle of(LockHandle handle) {
        Objects.requireNonNull(handle, "Lock handle must not be null");
        if (handle instanceof Handle own) {
            return own;
        }
        throw new IllegalArgumentException("Lock handle " + handle + " of '" + handle.key()
                + "' was not issued by a redis-lock AsyncLocker or ReactiveLocker; acquire(key, ...) issues one");
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public long fencingToken() {
        long token = fencingToken;
        if (token == 0) {
            throw new IllegalStateException("Lock handle " + id + " of '" + key + "' holds nothing yet: no fencing token");
        }
        return token;
    }

    void fencingToken(long token) {
        this.fencingToken = token;
    }

    @Override
    public String toString() {
        return "LockHandle[" + key + ", " + id + "]";
    }
}
