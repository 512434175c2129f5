package io.github.redislock.annotation;

import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.List;

import io.github.redislock.LockAcquisitionException;
import io.github.redislock.Locker;
import io.github.redislock.core.LockAdmin;
import io.github.redislock.core.RedisLocker;
import io.github.redislock.core.RedlockLocker;

/**
 * Which key kept a call out and who holds it, said the same way whoever took the keys: the calling
 * thread's multi-lock, which learns only that it failed, or an owner token's one-by-one taking (a
 * future or a stream), which knows the key but not its holder. Each answer costs a Redis read, made
 * only once a call has failed (or, for one key, when a skipped call is logged at DEBUG).
 */
final class BusyKeys {

    private BusyKeys() {
    }

    /**
     * The failure of a call on several keys, naming the first of {@code candidates} held by another owner than the
     * calling thread, and that owner; all the call's keys when none is held any more (the holder left meanwhile), or when
     * Redis fails the lookup of several candidates: a key whose lookup failed may be a free one.
     *
     * @param candidates the key that blocked an owner token's call, or every key of the calling thread's multi-lock in taking order
     */
    static LockAcquisitionException failure(DistributedLockInterceptor.LockedCall call, Locker locker, List<String> candidates) {
        // Only the thread's multi-lock asks about several, some of which that thread may hold already (a token's caller holds none)
        String caller = candidates.size() > 1 && locker instanceof RedisLocker redis ? redis.currentOwner() : null;
        for (String key : candidates) {
            String holder;
            try {
                holder = lookUpHolder(locker, key, caller);
            } catch (RuntimeException lookupFailure) {
                if (candidates.size() > 1) {
                    return new LockAcquisitionException(candidates, call.wait, lookupFailure);
                }
                holder = unnamedOwner(lookupFailure); // the one candidate is the busy key
            }
            if (holder != null) {
                return new LockAcquisitionException(key, call.wait, holder);
            }
        }
        return new LockAcquisitionException(candidates.size() == 1 ? candidates.get(0) : call.keys.toString(), call.wait);
    }

    /**
     * Who holds {@code key}: an owner field, or nobody while it is kept for its {@code holdAtLeast}.
     *
     * @param caller an owner field not to count (the calling thread, which may hold some keys of its multi-lock already), or null
     * @return null when nobody but {@code caller} holds it
     */
    static String holder(Locker locker, String key, String caller) {
        try {
            return lookUpHolder(locker, key, caller);
        } catch (RuntimeException e) {
            return unnamedOwner(e);
        }
    }

    private static String unnamedOwner(RuntimeException lookupFailure) {
        return "an owner Redis could not name (" + lookupFailure.getMessage() + ")";
    }

    /** {@link #holder}, failing as Redis fails. */
    private static String lookUpHolder(Locker locker, String key, String caller) {
        if (!(locker instanceof RedisLocker redis) || locker instanceof RedlockLocker) { // each Redlock master has its own state
            return "another owner";
        }
        LockAdmin.RedisState state = redis.admin().state(key);
        List<String> owners = state.holds().keySet().stream().filter(owner -> !owner.equals(caller)).toList();
        if (!owners.isEmpty()) {
            return "owner " + String.join(", ", owners);
        }
        if (state.holds().isEmpty() && state.type().equals("hash") && state.ttlMillis() > 0) {
            return "nobody: kept until " + LocalTime.now().plus(state.ttlMillis(), ChronoUnit.MILLIS).truncatedTo(ChronoUnit.MILLIS)
                    + " (another " + state.ttlMillis() + " ms) for its holdAtLeast";
        }
        return null;
    }
}
