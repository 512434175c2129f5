package io.github.redislock.annotation;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;

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
        String holder = BusyKeys.holder(locker, failure.getKey(), null);
        log.debug("Skipped " + call.definition.name + ": lock '" + failure.getKey() + "' is held by " + (holder != null ? holder : "nobody any more (it ended meanwhile)"));
    }
}
