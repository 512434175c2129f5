package io.github.redislock.core.renewal;

import java.util.Set;

/**
 * Some renewal batches of a tick failed (a shard down or too slow) while others reached Redis: the
 * locks those others found gone must still be reported, and the tick still counts as failed.
 */
public class PartialRenewalException extends RuntimeException {

    private final transient Set<WatchedLock> lost;

    public PartialRenewalException(String message, Throwable cause, Set<WatchedLock> lost) {
        super(message, cause);
        this.lost = Set.copyOf(lost);
    }

    public Set<WatchedLock> lost() {
        return lost;
    }
}
