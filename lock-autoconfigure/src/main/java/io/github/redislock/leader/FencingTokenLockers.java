package io.github.redislock.leader;

import io.github.redislock.Locker;
import io.github.redislock.core.RedlockLocker;

/**
 * Refuses a Locker without fencing tokens where they are needed: a leader's term is its token, and
 * Spring Integration's registry tells a lost hold from a held one by its token. A Redlock Locker has
 * none (each master draws its own, and no majority makes them one rising sequence), so the leader
 * election and the registry refuse it when they are built, not at a grant or a re-entry later.
 */
public final class FencingTokenLockers {

    private FencingTokenLockers() {
    }

    /**
     * @param user what needs the tokens, for the message
     * @return {@code locker}
     * @throws IllegalArgumentException when {@code locker} is a Redlock Locker
     * @throws IllegalStateException when {@code locker} is null
     */
    public static Locker require(Locker locker, String user) {
        if (locker == null) {
            throw new IllegalStateException(user + " has no Locker");
        }
        if (locker instanceof RedlockLocker) {
            throw new IllegalArgumentException(user + " needs fencing tokens, which the Redlock Locker (redis-lock.redlock.nodes) "
                    + "does not give: its masters count tokens each on its own. Use a Locker on one Redis (unset "
                    + "redis-lock.redlock.nodes), or for Spring Integration a LockRegistry of your own.");
        }
        return locker;
    }
}
