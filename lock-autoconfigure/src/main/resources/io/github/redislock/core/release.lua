-- Releases one hold of each of one or more reentrant locks (a multi-lock passes several; all KEYS
-- share one hash slot); only their owner can. Each lock is judged on its own. A lock that becomes
-- free goes straight to the first live member of its wait queue (see acquire.lua): no race of
-- woken waiters, and the next owner needs no round trip of its own to take it.
-- KEYS[5i-4]  lock hash i
-- KEYS[5i-3]  its release channel (same hash slot)
-- KEYS[5i-2]  its fencing-token counter: deleted when the lock is freed, drawn from on a hand-off (a
--             missing counter restarts from the Redis clock in microseconds, as in acquire.lua)
-- KEYS[5i-1]  its wait queue, oldest first: members '<claim ms>|<n>|<inbox><wait id>:<owner>', where
--             <inbox> (n bytes long) is the channel of the waiter's instance and <claim ms> the lease
--             the hand-off grants: at most the waiter's watchdog timeout, so a lock handed to a waiter
--             that died meanwhile is free again within it; a live waiter extends it on the message
-- KEYS[5i]    the members' deadlines (sorted set, ms on the Redis clock); a member past it is skipped
-- ARGV[1]     owner field
-- ARGV[2]     '' to release; a member to withdraw from lock 1's queue first (a waiter giving up, whose
--             lock may have been handed to it meanwhile: then that hold is released here too)
-- ARGV[2+i]   lease in milliseconds to restore on lock i when holds remain; never shortens its life
-- Publishes   on a hand-off 'granted:<token>:<wait id>:<owner>' to the new owner's inbox only (token =
--             its fencing token), else 'released' on the lock's channel (free: a waiter may try again)
-- Returns     per lock: -1 when the owner does not hold it (never taken, expired or deleted),
--             the remaining hold count otherwise; 0 means the lock is free or handed on.
local owner = ARGV[1]
local now

local function handOff(hash, channel, fence, queue, deadlines)
    local member = redis.call('lpop', queue)
    while member do
        local deadline = redis.call('zscore', deadlines, member)
        redis.call('zrem', deadlines, member)
        if not now then
            local clock = redis.call('time')
            now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
        end
        if deadline and tonumber(deadline) > now then
            local lease, inboxLength, rest = string.match(member, '^(%d+)|(%d+)|(.*)$')
            local inbox, wait = string.sub(rest, 1, inboxLength), string.sub(rest, inboxLength + 1)
            redis.call('hset', hash, string.match(wait, '^%d+:(.*)$'), 1)
            redis.call('pexpire', hash, lease)
            -- As text: Lua would print a token of 15+ digits in exponent notation.
            local token = string.format('%.0f', redis.call('incr', fence))
            if token == '1' then
                local clock = redis.call('time')
                token = clock[1] .. string.sub('00000' .. clock[2], -6)
                redis.call('set', fence, token)
            end
            redis.call('pexpire', fence, lease)
            redis.call('publish', inbox, 'granted:' .. token .. ':' .. wait)
            return
        end
        member = redis.call('lpop', queue)
    end
    redis.call('del', fence)
    redis.call('publish', channel, 'released')
end

if ARGV[2] ~= '' and redis.call('zrem', KEYS[5], ARGV[2]) == 1 then
    redis.call('lrem', KEYS[4], 1, ARGV[2])
end
local reply = {}
for i = 1, #KEYS / 5 do
    local hash = KEYS[5 * i - 4]
    local held = redis.call('hget', hash, owner)
    if not held then
        reply[i] = -1
    else
        local holdCount = tonumber(held) - 1
        if holdCount > 0 then
            redis.call('hset', hash, owner, holdCount)
            if redis.call('pttl', hash) < tonumber(ARGV[2 + i]) then
                redis.call('pexpire', hash, ARGV[2 + i])
            end
        else
            redis.call('del', hash)
            handOff(hash, KEYS[5 * i - 3], KEYS[5 * i - 2], KEYS[5 * i - 1], KEYS[5 * i])
        end
        reply[i] = holdCount
    end
end
return reply
