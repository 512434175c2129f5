-- Frees a lock of any kind whoever holds it (an operator's force-release) and wakes its waiters like a release.
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel (same hash slot as KEYS[1])
-- KEYS[3]  the read-write lock's lease set, deleted with it
-- KEYS[4]  the fair or read-write lock's fencing-token counter, deleted with it (a missing counter
--          restarts from the Redis clock; a plain lock draws its tokens from the clock and keeps none)
-- KEYS[5]  the fair lock's queue, whose first waiter is told
-- ARGV[1]  prefix of the fair waiters' own wake-up channels (see fair.lua)
-- ARGV[2]  'publish' or 'spublish': how to publish on the lock's channel and the turn channels (all in
--          the lock's hash slot)
-- Returns  the holds it removed as a flat list {owner1, count1, owner2, count2, ...}; for a read-write
--          lock the owners are '<owner>:r' (read holds) and '<owner>:w' (write holds); a lock kept for
--          its shortest hold ('kept', see release.lua) names the owner that released it, with 0 holds.
--          Empty when the lock was not held (nothing is deleted or published then).
--          An error when KEYS[1] exists but is not a lock: not a hash, or a hash with a field no lock
--          writes ('waiters', 'mode', 'writer', 'kept', or an owner field '<clientId>:<id>' with a number). It
--          is left untouched.
local keyType = redis.call('type', KEYS[1]).ok
if keyType == 'none' then
    return {}
end
if keyType ~= 'hash' then
    return redis.error_reply('not a lock: ' .. KEYS[1] .. ' is a ' .. keyType)
end
local fields = redis.call('hgetall', KEYS[1])
local readWrite = redis.call('hexists', KEYS[1], 'mode') == 1
local holds = {}
for i = 1, #fields, 2 do
    local field, value = fields[i], fields[i + 1]
    local mode = string.sub(field, -2)
    if field == 'waiters' or field == 'mode' or field == 'writer' then
        -- marks, not holds: the waiters mark (acquire.lua), a read-write lock's mode and writer
    elseif field == 'kept' then
        -- a lock kept for its shortest hold (release.lua): held by nobody, its former owner is named with 0 holds
        holds[#holds + 1] = value
        holds[#holds + 1] = '0'
    elseif not string.find(field, ':', 1, true) or not tonumber(value) then
        return redis.error_reply('not a lock: ' .. KEYS[1] .. ' is a hash with field ' .. field .. ', which no lock writes')
    elseif (not readWrite) or mode == ':r' or mode == ':w' then
        holds[#holds + 1] = field
        holds[#holds + 1] = value
    end
end
if #holds == 0 then
    return holds
end
redis.call('del', KEYS[1], KEYS[3], KEYS[4])
-- Read-write waiters may all enter together ('all'); a plain waiter tries again.
redis.call(ARGV[2], KEYS[2], readWrite and 'all' or 'released')
local head = redis.call('lindex', KEYS[5], 0)
if head then
    redis.call(ARGV[2], ARGV[1] .. head, 'your-turn')
end
return holds
