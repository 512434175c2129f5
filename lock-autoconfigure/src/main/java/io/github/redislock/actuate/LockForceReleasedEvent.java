package io.github.redislock.actuate;

import java.util.Map;

import org.springframework.context.ApplicationEvent;

/**
 * Published when an operator force-released a lock through the {@code locks} endpoint, for audit
 * trails. Its former holders learn it from their watchdog or their unlock ({@code LockLostException}).
 */
public class LockForceReleasedEvent extends ApplicationEvent {

    private final String key;
    private final String redisKey;
    private final Map<String, Long> removedHolds;

    public LockForceReleasedEvent(Object source, String key, String redisKey, Map<String, Long> removedHolds) {
        super(source);
        this.key = key;
        this.redisKey = redisKey;
        this.removedHolds = Map.copyOf(removedHolds);
    }

    /** The lock key, without the key prefix. */
    public String getKey() {
        return key;
    }

    /** The Redis key of the lock hash. */
    public String getRedisKey() {
        return redisKey;
    }

    /** The hold count per owner field that the force-release removed. */
    public Map<String, Long> getRemovedHolds() {
        return removedHolds;
    }

    @Override
    public String toString() {
        return "LockForceReleasedEvent[key=" + key + ", redisKey=" + redisKey + ", removedHolds=" + removedHolds + "]";
    }
}
