package io.github.redislock.annotation;

/** What {@link DistributedLock} does when the lock stays held by another owner for the whole wait. */
public enum LockFailurePolicy {

    /**
     * Throw {@link io.github.redislock.LockAcquisitionException} naming the key and the wait; for a
     * method returning a {@code CompletionStage}, {@code Mono} or {@code Flux}, signal it through that.
     */
    THROW,

    /**
     * Do not run the method: return null, {@code Optional.empty()}, a future completed with null, or an
     * empty {@code Mono}/{@code Flux}, as the return type fits. Refused at startup for primitive return types.
     */
    SKIP
}
