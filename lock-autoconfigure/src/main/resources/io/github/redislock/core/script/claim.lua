-- Confirms a lock a release handed over (see release.lua) for its new owner: lengthens it to the lease
-- the owner asked for, never shortening it, and always writes, so a WAIT that follows on the same
-- connection (redis-lock.replica-sync) covers the hand-off too.
-- KEYS[1]  the lock hash
-- ARGV[1]  owner field
-- ARGV[2]  lease in milliseconds
-- Returns  1 when the owner holds the lock (now for at least that lease), 0 when it does not (the
--          hand-off's claim lease ran out first)
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return 0
end
redis.call('pexpire', KEYS[1], math.max(redis.call('pttl', KEYS[1]), tonumber(ARGV[2])))
return 1
