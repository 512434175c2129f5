-- Confirms a lock a release handed over (see release.lua) for its new owner: lengthens it to the lease
-- the owner asked for, never shortening it, and always writes, so a WAIT that follows on the same
-- connection (redis-lock.replica-sync) covers the hand-off too.
-- KEYS[1]  the lock hash
-- KEYS[2], KEYS[3]  only with ARGV[3]: the lock's wait queue and its members' deadlines
-- ARGV[1]  owner field
-- ARGV[2]  lease in milliseconds
-- ARGV[3]  optional: the waiter's queue member, when a try of its wait went out after the release may have
--          taken the member out of the queue: that try, finding the lock held by another owner once the
--          claim lease had ended, queued the member again. The hand-off ended that wait's place, so the
--          member leaves the queue either way: a wait that takes the lock has no place, and one whose
--          claim lease ran out goes on with none (its next try queues it afresh)
-- Returns  1 when the owner holds the lock (now for at least that lease), 0 when it does not (the
--          hand-off's claim lease ran out first)
if ARGV[3] and redis.call('zrem', KEYS[3], ARGV[3]) == 1 then
    redis.call('lrem', KEYS[2], 1, ARGV[3])
end
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return 0
end
redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[2])))
return 1
