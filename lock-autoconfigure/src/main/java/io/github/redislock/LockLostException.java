package io.github.redislock;

/**
 * A lock this thread held was gone before it unlocked it: its lease expired, the watchdog could not
 * renew it in time (a long pause, a Redis outage), or its key was deleted or Redis restarted. Another
 * owner may have run its critical section at the same time, so the caller should treat its own work
 * as unprotected (use a fencing token where that matters).
 */
public class LockLostException extends IllegalMonitorStateException {

    private final String key;

    public LockLostException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** The lock key as the caller gave it (without the key prefix). */
    public String getKey() {
        return key;
    }
}
