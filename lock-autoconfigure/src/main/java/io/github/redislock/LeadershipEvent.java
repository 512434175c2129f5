package io.github.redislock;

import org.springframework.context.ApplicationEvent;

/**
 * Published when this instance is granted a role of a {@link LeaderElection}, or when that role is
 * revoked, right after its {@link LeadershipListener} heard it.
 */
public class LeadershipEvent extends ApplicationEvent {

    /** The {@link #getReason() reason} of a revocation after {@link Candidacy#yield()}. */
    public static final String YIELDED = "yielded";
    /** The {@link #getReason() reason} of a revocation after {@link Candidacy#close()}. */
    public static final String LEFT = "left the election";
    /**
     * The {@link #getReason() reason} of a revocation because the role's lock was lost: it expired (the
     * instance was paused or cut off from Redis past its lease) or was deleted. Another instance may lead already.
     */
    public static final String LOST = "lock lost";

    private final String role;
    private final long term;
    private final boolean granted;
    private final String reason;

    /** @param reason null for a grant */
    public LeadershipEvent(Object source, String role, long term, boolean granted, String reason) {
        super(source);
        this.role = role;
        this.term = term;
        this.granted = granted;
        this.reason = reason;
    }

    public String getRole() {
        return role;
    }

    /** The term granted, or the term that ended. */
    public long getTerm() {
        return term;
    }

    /** Whether the role was granted (else revoked). */
    public boolean isGranted() {
        return granted;
    }

    /** Why the role was revoked; null for a grant. */
    public String getReason() {
        return reason;
    }

    @Override
    public String toString() {
        return "LeadershipEvent[role=" + role + ", term=" + term + (granted ? ", granted" : ", revoked: " + reason) + "]";
    }
}
