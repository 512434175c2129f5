package io.github.redislock;

/**
 * The owner of locks taken through an {@link AsyncLocker} or a {@link ReactiveLocker}: a token, not a
 * thread, so the code that releases may run on any thread, long after the one that acquired.
 *
 * <p>In Redis a handle owns its lock as the field {@code <clientId>:~<id>} of the lock's hash, next
 * to the {@code <clientId>:<threadId>} fields of the blocking {@link Locker}'s owners: a blocking and
 * an asynchronous caller on one key exclude each other, queue in one hand-off order and draw from one
 * fencing-token counter.
 *
 * <p>A handle is bound to one key. Re-entry is explicit: acquiring again <em>with the same handle</em>
 * ({@link AsyncLocker#acquire(LockHandle, java.time.Duration, java.time.Duration)}) adds a hold, and every
 * acquisition needs its own release. A new handle for the same key is another owner and waits.
 * Handles come from the Locker that acquired them; a Locker refuses a handle it did not issue.
 */
public interface LockHandle {

    /** The lock's key, as the caller gave it. */
    String key();

    /** The handle's id: the owner token its lock's hash names it by (after {@code <clientId>:~}). */
    String id();

    /**
     * The fencing token of the hold the handle's latest acquisition got (a re-entry keeps the first
     * hold's); see {@link RedisLock#fencingToken()} for how a resource uses it, and for the clock
     * assumption: tokens come from the Redis server's clock and rise only while it does not step back.
     * A handle's acquisition always draws its token, so this never blocks (an event loop may call it).
     *
     * @throws IllegalStateException before the handle's first acquisition completed
     */
    long fencingToken();
}
