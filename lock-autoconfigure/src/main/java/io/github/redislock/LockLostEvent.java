package io.github.redislock;

import org.springframework.context.ApplicationEvent;

/**
 * Published when the watchdog finds that a lock this instance still held is no longer owned by it in
 * Redis (expired during a pause, deleted, or lost in a Redis restart), or gives up renewing a lock
 * whose owner thread ended without unlocking it. The holder's later unlock throws {@link LockLostException}.
 */
public class LockLostEvent extends ApplicationEvent {

    /** The {@link #getReason() reason} when Redis no longer had the lock for its owner. */
    public static final String EXPIRED_OR_DELETED = "expired, deleted or lost in a Redis restart";
    /** The {@link #getReason() reason} when the thread that took the lock ended without unlocking it. */
    public static final String OWNER_THREAD_TERMINATED = "owner thread terminated";

    private final String key;
    private final String redisKey;
    private final String owner;
    private final String reason;
    private final long fencingToken;

    public LockLostEvent(Object source, String key, String redisKey, String owner) {
        this(source, key, redisKey, owner, EXPIRED_OR_DELETED);
    }

    /** @param reason why it was lost, e.g. {@link #OWNER_THREAD_TERMINATED} */
    public LockLostEvent(Object source, String key, String redisKey, String owner, String reason) {
        this(source, key, redisKey, owner, reason, 0);
    }

    /**
     * @param reason       why it was lost, e.g. {@link #OWNER_THREAD_TERMINATED}
     * @param fencingToken the fencing token of the hold that was lost, or 0 when unknown
     */
    public LockLostEvent(Object source, String key, String redisKey, String owner, String reason, long fencingToken) {
        super(source);
        this.fencingToken = fencingToken;
        this.key = key;
        this.redisKey = redisKey;
        this.owner = owner;
        this.reason = reason;
    }

    /**
     * Why the lock was lost: {@link #OWNER_THREAD_TERMINATED} when the thread that took it ended without
     * unlocking it (the watchdog then stops renewing it and Redis frees it within the watchdog timeout),
     * otherwise {@link #EXPIRED_OR_DELETED}.
     */
    public String getReason() {
        return reason;
    }

    /** The lock key as the holder gave it (without the key prefix). */
    public String getKey() {
        return key;
    }

    /** The Redis key of the lock hash. */
    public String getRedisKey() {
        return redisKey;
    }

    /**
     * The fencing token of the hold that was lost, or 0 when unknown: on Redlock, and for a plain hold
     * that never drew one (nobody asked for it, see {@link RedisLock#fencingToken()}). It tells this loss
     * from that of a later hold of the same owner and key: the event is delivered off the watchdog's
     * thread, and the owner may have taken the lock again by then. A hold whose token was asked for is
     * reported with it, so 0 is never the loss of a hold known by its token: do not take 0 as matching one.
     */
    public long getFencingToken() {
        return fencingToken;
    }

    /** The owner that lost it: {@code <clientId>:<threadId>} or an invocation's owner token. */
    public String getOwner() {
        return owner;
    }

    @Override
    public String toString() {
        return "LockLostEvent[key=" + key + ", redisKey=" + redisKey + ", owner=" + owner + ", reason=" + reason + "]";
    }
}
