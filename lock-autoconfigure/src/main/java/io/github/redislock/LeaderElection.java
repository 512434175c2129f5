package io.github.redislock;

/**
 * One active instance per role: the application's instances that {@link #join} the election of a role
 * take turns at being its leader, one at a time, on the role's lock.
 *
 * <p>A candidate waits for the role in the lock's queue, so a leader that yields or leaves hands the
 * role straight to the next candidate (no polling); a leader that dies frees it when its lease runs out
 * (the role's lock is kept by a watchdog with that lease); a leader that was paused past its lease
 * (a long GC, a stopped process) is told it was revoked as soon as its watchdog runs again. Every grant
 * carries a {@linkplain Candidacy#term() term}, the lock's fencing token, higher than any earlier
 * grant's, so a resource can refuse the writes of an older leader.
 */
public interface LeaderElection {

    /**
     * Enters this instance as a candidate for {@code role}, on a thread of its own; {@code listener}
     * hears on that thread when the role is granted and revoked.
     *
     * @throws IllegalArgumentException when the role is not a valid lock key (naming it), or the role's Locker is a Redlock one,
     *                                  which gives no fencing tokens for terms
     * @throws NullPointerException     when {@code listener} is null
     * @throws IllegalStateException    when this election or the role's Locker is closed
     */
    Candidacy join(String role, LeadershipListener listener);
}
