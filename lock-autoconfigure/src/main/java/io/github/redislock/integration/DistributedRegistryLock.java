package io.github.redislock.integration;

/**
 * A {@link RegistryLock} that is a {@link DistributedRedisLock}: its time-to-live methods are
 * {@link RegistryLock}'s own. Loaded only where Spring Integration 7's {@code DistributedLock} exists.
 */
final class DistributedRegistryLock extends RegistryLock implements DistributedRedisLock {

    private DistributedRegistryLock(LockerLockRegistry<?> registry, String key) {
        super(registry, key);
    }

    /**
     * Typed as the plain {@link RegistryLock}, so that a caller's code names this class only in the call:
     * on Spring Integration 6.5 it is never loaded, while the caller is.
     */
    static RegistryLock of(LockerLockRegistry<?> registry, String key) {
        return new DistributedRegistryLock(registry, key);
    }
}
