package io.github.redislock.core.script;

/** The kinds of lock a key can be taken as; each has its own Redis script and its own hold per owner. */
public enum LockKind {

    /** Reentrant exclusive lock: the hash holds one owner field with its hold count. */
    PLAIN("reentrant", ""),
    /** Like {@link #PLAIN}, but waiters queue in Redis and are granted the lock in arrival order. */
    FAIR("fair", "fair lock "),
    /** A read hold is shared with other readers; the write hold is exclusive, but its owner may also read. */
    READ("read", "the read lock of "),
    WRITE("write", "the write lock of ");

    private final String metricName;
    private final String lockOf;

    LockKind(String metricName, String lockOf) {
        this.metricName = metricName;
        this.lockOf = lockOf;
    }

    /** Plain and fair acquisitions of one key by one owner are the same hold: they share the hash field. */
    public LockKind holdSlot() {
        return this == FAIR ? PLAIN : this;
    }

    public String metricName() {
        return metricName;
    }

    public String describe(String key) {
        return lockOf + "'" + key + "'";
    }
}
