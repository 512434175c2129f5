package io.github.redislock;

import org.springframework.context.ApplicationEvent;

/**
 * Published when the watchdog finds that a lock this instance still held is no longer owned by it in
 * Redis (expired during a pause, deleted, or lost in a Redis restart). The holder's later unlock
 * throws {@link LockLostException}.
 */
public class LockLostEvent extends ApplicationEvent {

    private final String key;
    private final String redisKey;
    private final String owner;

    public LockLostEvent(Object source, String key, String redisKey, String owner) {
        super(source);
        this.key = key;
        this.redisKey = redisKey;
        this.owner = owner;
    }

    /** The lock key as the holder gave it (without the key prefix). */
    public String getKey() {
        return key;
    }

    /** The Redis key of the lock hash. */
    public String getRedisKey() {
        return redisKey;
    }

    /** The owner that lost it: {@code <clientId>:<threadId>} or an invocation's owner token. */
    public String getOwner() {
        return owner;
    }

    @Override
    public String toString() {
        return "LockLostEvent[key=" + key + ", redisKey=" + redisKey + ", owner=" + owner + "]";
    }
}
