package io.github.redislock.annotation;

import java.time.LocalTime;
import java.time.temporal.ChronoUnit;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;
import io.github.redislock.core.LockAdmin;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.RedlockLocker;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The DEBUG line of a call skipped because its lock was busy ({@code onFailure = SKIP}), such as a
 * {@code @Scheduled} run another instance already did: which method, which key, and who holds it,
 * an owner field or a lock kept for its {@code holdAtLeast}. Finding the holder costs a Redis read,
 * so it is made only when the line is logged, and only on the calling thread (a method returning a
 * plain value; the skipped run of a stage or a stream has no thread to spare for it).
 */
final class SkippedCalls {

    /** Named after the annotation: the one name users know. */
    private static final Log log = LogFactory.getLog(DistributedLock.class);

    private SkippedCalls() {
    }

    static void log(DistributedLockInterceptor.LockedCall call, Locker locker, LockAcquisitionException failure) {
        if (call.definition.onFailure != LockFailurePolicy.SKIP || call.definition.fallback != null || !log.isDebugEnabled()) {
            return;
        }
        log.debug("Skipped " + call.definition.name + ": lock '" + failure.getKey() + "' is held by "
                + (call.keys.size() == 1 ? holder(locker, failure.getKey()) : "another owner"));
    }

    private static String holder(Locker locker, String key) {
        if (!(locker instanceof RedisLocker redis) || locker instanceof RedlockLocker) { // each Redlock master has its own state
            return "another owner";
        }
        try {
            LockAdmin.RedisState state = redis.admin().state(key);
            if (!state.holds().isEmpty()) {
                return "owner " + String.join(", ", state.holds().keySet());
            }
            if (state.type().equals("hash") && state.ttlMillis() > 0) {
                return "nobody: kept until " + LocalTime.now().plus(state.ttlMillis(), ChronoUnit.MILLIS).truncatedTo(ChronoUnit.MILLIS)
                        + " (another " + state.ttlMillis() + " ms) for its holdAtLeast";
            }
            return "nobody any more (it ended meanwhile)";
        } catch (RuntimeException e) {
            return "an owner Redis could not name (" + e.getMessage() + ")";
        }
    }
}
