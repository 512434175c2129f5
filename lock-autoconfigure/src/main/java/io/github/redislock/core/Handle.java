package io.github.redislock.core;

import java.util.Objects;
import java.util.UUID;

import io.github.redislock.LockHandle;

/** The {@link LockHandle} a {@link RedisAsyncLocker} issues: its key, its owner id and its latest fencing token. */
final class Handle implements LockHandle {

    private final String key;
    private final String id;
    /** The locker whose holds this handle's owner field names: its client id is part of it. */
    private final RedisLocker issuer;
    /** The fencing token of the handle's current hold; 0 before its first acquisition. */
    private volatile long fencingToken;

    Handle(String key, RedisLocker issuer) {
        this.key = Objects.requireNonNull(key, "key");
        this.id = UUID.randomUUID().toString();
        this.issuer = issuer;
    }

    /**
     * The handle as {@code locker} issued it. Another locker's handle names no owner here: a release
     * through it would fail or, worse, an acquisition start a second owner.
     */
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
