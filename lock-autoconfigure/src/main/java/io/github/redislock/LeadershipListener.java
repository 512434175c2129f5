package io.github.redislock;

/**
 * Hears a {@link Candidacy}'s grants and revocations, on the candidacy's own thread, in order: every
 * grant is followed by exactly one revocation before the next grant.
 *
 * <p>A revocation is heard before the role's lock is released (when this instance still had it), so the
 * leader's work can stop before another instance starts leading. A slow listener delays that hand-over.
 */
public interface LeadershipListener {

    /**
     * This instance leads {@code candidacy}'s role from now on, in {@code term}; {@link Candidacy#isLeader()}
     * is true already (so work started here may check it).
     */
    void granted(Candidacy candidacy, long term);

    /**
     * This instance no longer leads {@code candidacy}'s role.
     *
     * @param term   the term that ended
     * @param reason why: {@link LeadershipEvent#YIELDED}, {@link LeadershipEvent#LEFT} or {@link LeadershipEvent#LOST}
     */
    void revoked(Candidacy candidacy, long term, String reason);
}
