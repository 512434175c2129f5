package io.github.redislock.actuate;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.redislock.HeldLock;
import io.github.redislock.core.LockAdmin;
import io.github.redislock.LockRedisException;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.WatchdogState;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

/**
 * {@code /actuator/locks}: the locks this instance holds and its watchdog's state, and the Redis-side
 * state of any lock key. Read-only; {@link ForceReleasingLocksEndpoint} adds DELETE when enabled.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {

    private static final Log log = LogFactory.getLog(LocksEndpoint.class);

    final RedisLocker locker;
    final LockAdmin admin;
    private final WatchdogState watchdog;

    public LocksEndpoint(RedisLocker locker) {
        this.locker = locker;
        this.watchdog = locker.watchdogState();
        this.admin = locker.admin();
    }

    @ReadOperation
    public LocksDescriptor locks() {
        List<HeldLock> held = locker.heldLocks();
        Map<String, Long> leases;
        try {
            leases = admin.remainingLeases(held.stream().map(HeldLock::redisKey).toList());
        } catch (LockRedisException e) {
            log.debug("Cannot read the remaining leases; listing the locks without them", e); // the list matters most when Redis is down
            leases = Map.of();
        }
        Map<String, Long> remaining = leases;
        // A lock released during the round trip would show a TTL of -2, like a lost one: list only the
        // locks still held after it, and read the watchdog at that moment too, so both parts agree.
        Set<List<String>> stillHeld = locker.heldLocks().stream().map(lock -> List.of(lock.redisKey(), lock.owner()))
                .collect(Collectors.toSet());
        WatchdogDescriptor watchdogState = new WatchdogDescriptor(watchdog.timeout().toMillis(), watchdog.watchedCount(),
                watchdog.lastRenewal(), watchdog.consecutiveFailures(), watchdog.failingSince());
        List<HeldLockDescriptor> locks = held.stream()
                .filter(lock -> stillHeld.contains(List.of(lock.redisKey(), lock.owner())))
                .map(lock -> new HeldLockDescriptor(lock.key(), lock.redisKey(), lock.kind(),
                        lock.owner(), lock.thread(), lock.holdCount(), lock.since(), remaining.get(lock.redisKey()), lock.watchdog(), lock.lost()))
                .toList();
        return new LocksDescriptor(locks, watchdogState);
    }

    /** @param key the lock key without prefix; may contain '/' */
    @ReadOperation
    public LockAdmin.RedisState lock(@Selector(match = Match.ALL_REMAINING) String[] key) {
        return withKey(key, admin::state);
    }

    /** Runs {@code action} on the key the path segments spell; a key the locks refuse is the client's mistake (HTTP 400). */
    static <T> T withKey(String[] segments, Function<String, T> action) {
        String key = String.join("/", segments);
        try {
            return action.apply(key);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
    }

    public record LocksDescriptor(List<HeldLockDescriptor> locks, WatchdogDescriptor watchdog) implements OperationResponseBody {
    }

    /**
     * @param leaseRemainingMillis the lock's TTL in Redis now; null when Redis could not be asked,
     *                             -2 when the key is gone
     */
    public record HeldLockDescriptor(String key, String redisKey, String kind, String owner, String thread, long holdCount,
                                     Instant heldSince, Long leaseRemainingMillis, boolean renewedByWatchdog, boolean lost) {
    }

    /**
     * @param failingSince when the current run of failed renewals began; null when renewing works
     */
    public record WatchdogDescriptor(long timeoutMillis, int watchedLocks, Instant lastRenewal, int consecutiveFailures,
                                     Instant failingSince) {
    }
}
