-- Takes or releases one hold of a read-write lock: many readers or one writer; the writer may also read.
-- KEYS[1]  the lock hash: 'mode' = read|write, 'writer' = the writing owner, and per owner
--          '<owner>:r' (read holds), '<owner>:w' (write holds), '<owner>:t' (its fencing token)
-- KEYS[2]  sorted set of owners by lease deadline (ms since the epoch, Redis clock): each owner's
--          lease ends alone, so one crashed reader does not keep the lock forever
-- KEYS[3]  the fencing-token counter: expires with the lease it was drawn for, deleted with the lock; a
--          missing counter restarts from the Redis clock in microseconds (see acquire.lua)
-- KEYS[4]  the release channel
-- ARGV[1]  'read' or 'write' to acquire, 'unread' or 'unwrite' to release one hold
-- ARGV[2]  owner (<clientId>:<threadId>)
-- ARGV[3]  lease in milliseconds (acquire only); a re-entry moves the owner's single lease deadline
--          later, never earlier, and a release leaves it where it is
-- ARGV[4]  acquire: '1' when the client knows of no hold of this owner on the lock: what Redis still
--          counts for it was left by an acquisition whose reply never arrived and is dropped first;
--          release: '1' for the owner's last hold of that mode as its client counts: the mode's hold goes
--          whatever Redis counts (more were taken by re-entries whose reply was lost, which nobody unlocks)
-- ARGV[5]  acquire: '1' when the client knows of no hold of this owner in the requested mode: such a
--          count restarts at 1, so one unlock undoes it; a release sends '0' for ARGV[3] and ARGV[5]
-- ARGV[6]  'publish' or 'spublish': how to publish on the release channel (sharded on a Redis Cluster
--          that supports it)
-- Returns  acquire: {1, holdCount, token} (a token is drawn when the owner held nothing on this key
--                   before, otherwise its current token is kept), or {0, 1, ms} when blocked, ms
--                   being the time until the earliest lease among the holders ends (-1 unknown);
--          release: -1 when the owner held no such hold, else the holds of that mode left; at 0 a
--                   freed writer slot or a last reader leaving is published ('all': every waiter may try).
local hash, leases, fence, channel = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local action, owner = ARGV[1], ARGV[2]
local acquiring = action == 'read' or action == 'write'

if redis.call('exists', hash) == 1 and not redis.call('hget', hash, 'mode') then
    -- the key is taken as a plain or fair lock; 'waiters' makes a plain lock's release publish (see release.lua)
    if acquiring then
        redis.call('hset', hash, 'waiters', 1)
        return {0, 1, redis.call('pttl', hash)}
    end
    return -1
end

local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

-- Owners whose lease ended (crashed, or paused past it) leave with all their holds.
for _, gone in ipairs(redis.call('zrangebyscore', leases, '-inf', now)) do
    redis.call('hdel', hash, gone .. ':r', gone .. ':w', gone .. ':t')
    if redis.call('hget', hash, 'writer') == gone then
        redis.call('hdel', hash, 'writer')
    end
    redis.call('zrem', leases, gone)
end

local function holdsAny(who)
    return redis.call('hexists', hash, who .. ':r') == 1 or redis.call('hexists', hash, who .. ':w') == 1
end

-- Brings mode and expiry in line with the owners left; deletes the lock when none is. Returns whether it did.
local function settle()
    if redis.call('zcard', leases) == 0 then
        redis.call('del', hash, leases, fence)
        return true
    end
    redis.call('hset', hash, 'mode', redis.call('hexists', hash, 'writer') == 1 and 'write' or 'read')
    local last = redis.call('zrange', leases, -1, -1, 'withscores')
    local ttl = math.max(1, tonumber(last[2]) - now)
    redis.call('pexpire', hash, ttl)
    redis.call('pexpire', leases, ttl)
    return false
end

local function blocked()
    local first = redis.call('zrange', leases, 0, 0, 'withscores')
    if first[2] == nil then
        return {0, 1, -1}
    end
    return {0, 1, math.max(1, tonumber(first[2]) - now)}
end

if acquiring and ARGV[4] == '1' then
    redis.call('hdel', hash, owner .. ':r', owner .. ':w', owner .. ':t')
    if redis.call('hget', hash, 'writer') == owner then
        redis.call('hdel', hash, 'writer')
    end
    if redis.call('zrem', leases, owner) == 1 then
        settle()
    end
end

if acquiring then
    local writer = redis.call('hget', hash, 'writer')
    if writer and writer ~= owner then
        return blocked()
    end
    if action == 'write' and not writer and redis.call('zcard', leases) > 0 then
        return blocked() -- readers hold it
    end
    local token
    if holdsAny(owner) then
        token = tonumber(redis.call('hget', hash, owner .. ':t')) or 0
    else
        -- As text: Lua would write a token of 15+ digits in exponent notation.
        token = string.format('%.0f', redis.call('incr', fence))
        if token == '1' then
            token = clock[1] .. string.sub('00000' .. clock[2], -6)
            redis.call('set', fence, token)
        end
        redis.call('pexpire', fence, ARGV[3])
        redis.call('hset', hash, owner .. ':t', token)
        token = tonumber(token)
    end
    local modeField = owner .. (action == 'read' and ':r' or ':w')
    if ARGV[5] == '1' then
        redis.call('hdel', hash, modeField)
    end
    local holdCount = redis.call('hincrby', hash, modeField, 1)
    if action == 'write' then
        redis.call('hset', hash, 'writer', owner)
    end
    redis.call('zadd', leases, 'GT', now + tonumber(ARGV[3]), owner)
    settle()
    return {1, holdCount, token}
end

local field = owner .. (action == 'unread' and ':r' or ':w')
if redis.call('hexists', hash, field) == 0 then
    return -1
end
local holdCount = ARGV[4] == '1' and 0 or redis.call('hincrby', hash, field, -1)
if holdCount > 0 then
    return holdCount
end
redis.call('hdel', hash, field)
if action == 'unwrite' then
    redis.call('hdel', hash, 'writer')
end
if not holdsAny(owner) then
    redis.call('hdel', hash, owner .. ':t')
    redis.call('zrem', leases, owner)
end
if settle() or action == 'unwrite' then
    redis.call(ARGV[6], channel, 'all')
end
return 0
