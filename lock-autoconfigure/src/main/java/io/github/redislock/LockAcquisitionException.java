package io.github.redislock;

import java.time.Duration;
import java.util.List;

/** The lock stayed held by somebody else for the whole wait (or the wait was interrupted). */
public class LockAcquisitionException extends LockException {

    private final String key;
    private final Duration waitTime;

    public LockAcquisitionException(String key, Duration waitTime) {
        this(key, waitTime, "another owner");
    }

    /** @param holder who holds the lock, as far as it is known: {@code "owner <clientId>:<threadId>"}, say */
    public LockAcquisitionException(String key, Duration waitTime, String holder) {
        super("Could not acquire lock '" + key + "' within " + waitTime + ": it is held by " + holder);
        this.key = key;
        this.waitTime = waitTime;
    }

    /**
     * A call on several keys, one of which stayed busy, when Redis failed the lookup that names it: naming one would be a
     * guess that could name a free key. This stays the call's failure, with the lookup's suppressed in it.
     *
     * @param keys every key of the call; {@link #getKey()} is their list
     */
    public LockAcquisitionException(List<String> keys, Duration waitTime, RuntimeException lookupFailure) {
        super("Could not acquire locks " + keys + " within " + waitTime + ": could not tell which key is busy, the lookup failed: "
                + lookupFailure.getMessage());
        addSuppressed(lookupFailure);
        this.key = keys.toString();
        this.waitTime = waitTime;
    }

    public LockAcquisitionException(String key, Duration waitTime, InterruptedException cause) {
        super("Interrupted while waiting up to " + waitTime + " for lock '" + key + "'", cause);
        this.key = key;
        this.waitTime = waitTime;
    }

    /** The lock key as the caller gave it (without the key prefix). */
    public String getKey() {
        return key;
    }

    /** How long the caller was prepared to wait. */
    public Duration getWaitTime() {
        return waitTime;
    }
}
