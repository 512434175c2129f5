package io.github.redislock.core.script;

/** The kinds of lock a key can be taken as; each has its own Redis script and its own hold per owner. */
public enum LockKind {

    /** Reentrant exclusive lock: the hash holds one owner field with its hold count. */
    PLAIN,
    /** Like {@link #PLAIN}, but waiters queue in Redis and are granted the lock in arrival order. */
    FAIR,
    /** A read hold of a read-write lock: shared with other readers. */
    READ,
    /** The write hold of a read-write lock: exclusive, but its owner may also read. */
    WRITE;

    /** Plain and fair acquisitions of one key by one owner are the same hold: they share the hash field. */
    public LockKind holdSlot() {
        return this == FAIR ? PLAIN : this;
    }

    public boolean readWrite() {
        return this == READ || this == WRITE;
    }

    /** How metrics and diagnostics name holds of this kind. */
    public String metricName() {
        return switch (this) {
            case PLAIN -> "reentrant";
            case FAIR -> "fair";
            case READ -> "read";
            case WRITE -> "write";
        };
    }

    /** How messages name the lock of this kind on {@code key}. */
    public String describe(String key) {
        return switch (this) {
            case PLAIN -> "'" + key + "'";
            case FAIR -> "fair lock '" + key + "'";
            case READ -> "the read lock of '" + key + "'";
            case WRITE -> "the write lock of '" + key + "'";
        };
    }
}
