package io.github.redislock.actuate;

import java.util.Map;

import io.github.redislock.core.RedisLocker;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The {@code locks} endpoint with {@code DELETE /actuator/locks/{key}}, used only when
 * {@code redis-lock.actuator.force-release-enabled=true}: without it the operation does not exist at
 * all (HTTP 405), rather than existing and refusing.
 */
@Endpoint(id = "locks")
public class ForceReleasingLocksEndpoint extends LocksEndpoint {

    private static final Log log = LogFactory.getLog(ForceReleasingLocksEndpoint.class);

    private final ApplicationEventPublisher events;

    public ForceReleasingLocksEndpoint(RedisLocker locker, ApplicationEventPublisher events) {
        super(locker);
        this.events = events;
    }

    /** Frees the lock whoever holds it and wakes its waiters; its holders' unlocks will throw LockLostException. */
    @DeleteOperation
    public ForceReleaseDescriptor forceRelease(@Selector(match = Match.ALL_REMAINING) String[] key) {
        String lockKey = String.join("/", key);
        String redisKey = locker.getKeyPrefix() + lockKey;
        Map<String, Long> removed = withKey(key, admin::forceRelease);
        if (!removed.isEmpty()) {
            log.warn("Force-released lock " + redisKey + " through the locks endpoint; it was held by " + removed
                    + " (owner=hold count), who may still be running their critical section");
            events.publishEvent(new LockForceReleasedEvent(this, lockKey, redisKey, removed));
        }
        return new ForceReleaseDescriptor(lockKey, redisKey, !removed.isEmpty(), removed);
    }

    /** @param released false when the lock was free already (nothing was changed) */
    public record ForceReleaseDescriptor(String key, String redisKey, boolean released, Map<String, Long> removedHolds)
            implements OperationResponseBody {
    }
}
