package io.github.redislock.observation;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags of the lock acquisition observation. Metrics get only low-cardinality tags (name,
 * kind, result); the raw key goes to traces only. Replace it with a {@code GlobalObservationConvention}
 * for {@link LockAcquisitionContext}.
 */
public class DefaultLockAcquisitionConvention implements ObservationConvention<LockAcquisitionContext> {

    /** The observation name, hence the timer {@code redis.lock.acquire} and the span name. */
    public static final String NAME = "redis.lock.acquire";

    @Override
    public String getName() {
        return NAME;
    }

    @Override
    public String getContextualName(LockAcquisitionContext context) {
        return "lock " + context.getLockName();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockAcquisitionContext context) {
        KeyValues tags = KeyValues.of("lock.name", context.getLockName(), "lock.kind", context.getLock().kind());
        // Absent while waiting, so the long task timer of waits in progress has no result tag.
        return context.getResult() == null ? tags : tags.and("lock.result", context.getResult().tagValue());
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockAcquisitionContext context) {
        return KeyValues.of("lock.key", context.getLock().key());
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof LockAcquisitionContext;
    }
}
