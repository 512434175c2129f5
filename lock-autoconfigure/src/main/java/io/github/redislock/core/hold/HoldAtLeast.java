package io.github.redislock.core.hold;

import io.github.redislock.core.script.LockKind;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The shortest hold of a lock ({@code holdAtLeast}): how long a final release keeps the lock in Redis,
 * owned by nobody, so that a scheduled job's run shorter than the clock skew between two instances
 * does not let the other instance's trigger find the lock free and run the job a second time.
 *
 * <p>The time since the lock was taken is measured on this instance's monotonic clock, from the reply
 * (or hand-off message) that granted it to the release, and the rest is sent as a relative
 * {@code PEXPIRE}: no wall clock is compared with another's (their skew is the very problem), and Redis
 * keeps the lock at least {@code holdAtLeast} after it granted it, longer by at most two trips. Redis's
 * own clock at the grant would need a field written by every acquisition, for a feature few locks use.
 */
public final class HoldAtLeast {

    private HoldAtLeast() {
    }

    /**
     * How long the release of {@code hold} now keeps its lock: 0 unless it is the final release of a
     * plain hold taken less than {@code holdAtLeast} ago. A hold with a lease is kept no longer than
     * that lease: it would have ended then had it never been released.
     */
    public static long keepMillis(Hold hold, Duration holdAtLeast) {
        if (hold.count > 1 || hold.kind != LockKind.PLAIN || holdAtLeast.isZero()) {
            return 0;
        }
        long keepNanos = saturatedNanos(holdAtLeast);
        if (!hold.watched && hold.leaseMillis > 0) {
            keepNanos = Math.min(keepNanos, TimeUnit.MILLISECONDS.toNanos(hold.leaseMillis));
        }
        long leftNanos = keepNanos - (System.nanoTime() - hold.sinceNanos);
        return leftNanos <= 0 ? 0 : (leftNanos + 999_999) / 1_000_000; // rounded up: never shorter than asked
    }

    /**
     * @return {@code holdAtLeast}, checked
     * @throws IllegalArgumentException when it is null or negative, naming the key
     */
    public static Duration checked(String key, Duration holdAtLeast) {
        if (holdAtLeast == null || holdAtLeast.isNegative()) {
            throw new IllegalArgumentException("holdAtLeast for lock '" + key + "' must be 0 or more (0 releases at once), but was " + holdAtLeast);
        }
        return holdAtLeast;
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2; // centuries: no overflow in the subtraction
        }
    }
}
