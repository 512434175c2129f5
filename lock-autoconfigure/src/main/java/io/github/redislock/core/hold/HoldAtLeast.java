package io.github.redislock.core.hold;

import io.github.redislock.core.script.LockKind;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The shortest hold of a lock ({@code holdAtLeast}): how long a final release keeps the lock in Redis,
 * owned by nobody, so that it ends {@code holdAtLeast} after it was taken. A scheduled job needs it:
 * a run shorter than the clock skew between two instances is over before the other instance's trigger
 * fires, and without it that trigger finds the lock free and runs the job a second time.
 *
 * <p><b>Why the time left is measured here and sent as a relative time.</b> "Since it was taken" is
 * measured on this instance's monotonic clock ({@link System#nanoTime()}), from the moment this
 * instance learnt it holds the lock (the acquisition's reply or the hand-off message) to the release;
 * the rest is sent along and Redis applies it as a relative {@code PEXPIRE}. No wall clock is compared
 * with another's: not the other instances' (their skew is the very problem), not this host's (a wall
 * clock step moves nothing) and not the Redis host's. The start is taken a little after Redis granted
 * the lock and the release reaches Redis a little after the time left was computed, so Redis keeps
 * the lock at least {@code holdAtLeast} after it granted it, and longer by at most those two trips.
 * Asking Redis for the time instead (its clock at the grant) would be as good on one Redis, but needs a
 * field written by every acquisition of every lock, for a feature few locks use.
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
