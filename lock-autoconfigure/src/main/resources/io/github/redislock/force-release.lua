-- Frees a lock whoever holds it (an operator's force-release) and wakes its waiters like a release.
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel (same hash slot as KEYS[1])
-- Returns  the holds it removed as a flat list {owner1, count1, owner2, count2, ...}; empty when the
--          lock was not held (nothing is deleted or published then).
--          An error when KEYS[1] exists but is not a lock hash, which is left untouched.
local keyType = redis.call('type', KEYS[1]).ok
if keyType == 'none' then
    return {}
end
if keyType ~= 'hash' then
    return redis.error_reply('not a lock: ' .. KEYS[1] .. ' is a ' .. keyType)
end
local holds = redis.call('hgetall', KEYS[1])
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], 'released')
return holds
