package io.github.redislock;

/**
 * This instance's candidacy for one role of a {@link LeaderElection}, from {@link LeaderElection#join}
 * until {@link #close}.
 */
public interface Candidacy extends AutoCloseable {

    /** The role, also the key of its lock. */
    String role();

    /**
     * Whether this instance leads the role now, as far as it can be sure: false once it is revoked, and
     * also while its lease is in doubt (two thirds of it passed without a renewal: the process was paused
     * or cut off from Redis), until the watchdog renews the lock or finds it lost (then it is revoked).
     * Check it before each step of leader-only work.
     */
    boolean isLeader();

    /**
     * The term of the current leadership: the fencing token of the role's lock, higher than that of every
     * earlier grant of the role. Pass it with the leader's writes, so a resource can refuse an older term's.
     *
     * @throws IllegalStateException when this instance does not lead the role ({@link #isLeader()} is false)
     */
    long term();

    /**
     * Gives the role up now, if this instance leads it: the revocation is heard, then the role goes to the
     * candidate that has waited longest, and this one queues again behind it. Returns at once; does
     * nothing when this instance does not lead.
     */
    void yield();

    /**
     * Leaves the election: a leader is revoked and hands the role to the next candidate. Returns once the
     * role's lock is released (or the wait for it withdrawn), at most after a few seconds.
     */
    @Override
    void close();
}
