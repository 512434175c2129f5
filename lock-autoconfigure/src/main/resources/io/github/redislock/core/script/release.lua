-- Releases one hold of each of one or more reentrant locks (a multi-lock passes several; all KEYS
-- share one hash slot); only their owner can. Each lock is judged on its own. A lock that becomes
-- free goes straight to the first live member of its wait queue (see acquire.lua): no race of
-- woken waiters, and the next owner needs no round trip of its own to take it.
-- A final release of a lock no waiter ever blocked on (no 'waiters' field) runs 2 commands (HMGET,
-- DEL): it neither looks at the queue nor publishes. A waiter that blocks writes the field in the same
-- script call that queues it, so no waiter can be missed; one that queued under an earlier holder
-- whose lease ran out finds the next holder on its next try (at the latest when its place is due
-- for a refresh) and writes the field there.
-- A short release (KEYS[1] alone, ARGV[1] the owner) is the client's first call for the final release
-- of a single plain hold it took with its first try: 2 commands (HEXISTS, HDEL), 1 key, 1 argument,
-- each call answering an integer. It deletes the lock when the owner holds it and no 'waiters' field
-- is there: HDEL of the owner's field, the hash's only one then (a plain lock's hash never holds a
-- second owner, and 'kept' only replaces the owner's field), deletes the hash with it. With the
-- field it changes nothing and returns -2: the client sends the full release below, which looks at
-- the queue then.
-- KEYS[4i-3]  lock hash i
-- KEYS[4i-2]  its release channel (same hash slot)
-- KEYS[4i-1]  its wait queue, oldest first: members '<claim ms>|<n>|<inbox><wait id>:<owner>', where
--             <inbox> (n bytes long) is the channel of the waiter's instance and <claim ms> the lease
--             the hand-off grants: at most the waiter's watchdog timeout, so a lock handed to a waiter
--             that died meanwhile is free again within it; a live waiter extends it on the message
-- KEYS[4i]    the members' deadlines (sorted set, ms on the Redis clock); a member past it is skipped
-- ARGV[1]     owner field
-- ARGV[2]     '' to release; a member to withdraw from lock 1's queue (a waiter giving up): when it
--             is still queued, nothing else happens; when it is gone, the lock was handed to it (or taken
--             by a try whose reply was lost) and the owner's hold is released as by ''
--             (a single lock only)
-- ARGV[3]     'publish' or 'spublish': how to publish on the lock's channel (sharded on a Redis Cluster
--             that supports it); with 'spublish' a hand-off goes there too, not to the inbox, which has
--             no slot: a classic publish crosses the cluster bus, which drops it while a link reconnects
-- ARGV[2+2i]  lease in milliseconds to restore on lock i when holds remain; never shortens its life;
--             '0' for the owner's last hold as its client counts: the lock is freed whatever Redis counts
--             (a count above the client's was left by a re-entry whose reply was lost, which nobody will
--             unlock; kept, the watchdog would renew it with nobody behind it)
-- ARGV[3+2i]  the releasing owner's fencing token on lock i (0 when unknown or never drawn): a hand-off gives the
--             next owner the greater of one above it and the Redis clock in microseconds (a re-entry
--             whose reply was lost may have drawn a clock token the releasing client never learnt); a
--             later hold draws from the clock (acquire.lua, token.lua), which the hand-offs (a round trip each) cannot
--             have overtaken
-- ARGV[3+2n+i] optional (n = #KEYS / 4; absent or 0 for a plain release): ms to keep lock i on a
--             final release instead of freeing it (a shortest hold, 'holdAtLeast'): the owner's field
--             goes, a 'kept' field (value: the releasing owner) takes its place, which no owner field
--             can equal (owner fields hold a ':'), and the lock lives exactly this long more (relative,
--             so only the client's own clock measured it), renewed by nobody, then Redis deletes it.
--             Until then every owner is refused, its former owner too; nothing is handed off or
--             published (queued waiters try again when its time is up: acquire.lua tells them its pttl)
-- Publishes   on a hand-off 'granted:<token>:<wait id>:<owner>' to the new owner's inbox only (token =
--             its fencing token, see ARGV[3+2i]); with 'spublish', '<n>|<inbox>granted:...' on the lock's
--             channel, which the new owner's instance subscribed on the lock's own master,
--             else, when waiters had blocked on the lock, 'released' on the lock's channel (free: a
--             waiter may try again)
-- Returns     per lock, a table: -1 when the owner does not hold it (never taken, expired or deleted) or a
--             withdrawn member was still queued, the remaining hold count otherwise; 0 means the lock is
--             free, handed on, or kept. A short release returns one integer, not a table: -2 when the
--             owner holds it and a waiter marked it, else -1 or 0 as a full one.
local owner = ARGV[1]
local locks = #KEYS / 4
if #KEYS == 1 then
    if redis.call('hexists', KEYS[1], 'waiters') == 1 then
        return -1 - redis.call('hexists', KEYS[1], owner)
    end
    return redis.call('hdel', KEYS[1], owner) - 1
end

local function handOff(hash, channel, queue, deadlines, releasedToken)
    local clock = redis.call('time')
    local micros = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
    local now = math.floor(micros / 1000)
    local member = redis.call('lpop', queue)
    while member do
        local deadline = redis.call('zscore', deadlines, member)
        redis.call('zrem', deadlines, member)
        if deadline and tonumber(deadline) > now then
            local lease, inboxLength, rest = string.match(member, '^(%d+)|(%d+)|(.*)$')
            local inbox, wait = string.sub(rest, 1, inboxLength), string.sub(rest, inboxLength + 1)
            local newOwner = string.match(wait, '^%d+:(.*)$')
            if redis.call('llen', queue) > 0 then
                redis.call('hset', hash, newOwner, 1, 'waiters', 1)
            else
                redis.call('hset', hash, newOwner, 1)
            end
            redis.call('pexpire', hash, lease)
            -- As text: Lua would print a token of 15+ digits in exponent notation.
            -- Never below the clock: a re-entry whose reply was lost may have drawn a clock token the
            -- releasing client never learnt, above the one it sent.
            local token = string.format('%.0f', math.max(releasedToken + 1, micros))
            local granted = 'granted:' .. token .. ':' .. wait
            if ARGV[3] == 'spublish' then
                redis.call('spublish', channel, inboxLength .. '|' .. inbox .. granted)
            else
                redis.call('publish', inbox, granted)
            end
            return
        end
        member = redis.call('lpop', queue)
    end
    redis.call(ARGV[3], channel, 'released')
end

-- A member still queued was handed nothing: the owner's holds, if any, are not this wait's to release.
if ARGV[2] ~= '' and redis.call('zrem', KEYS[4], ARGV[2]) == 1 then
    redis.call('lrem', KEYS[3], 1, ARGV[2])
    return {-1}
end
local reply = {}
for i = 1, locks do
    local hash = KEYS[4 * i - 3]
    local fields = redis.call('hmget', hash, owner, 'waiters')
    if not fields[1] then
        reply[i] = -1
    else
        local restoreLease = ARGV[2 + 2 * i]
        local keepMillis = ARGV[3 + 2 * locks + i]
        -- '0': the owner's last hold as its client counts: more in Redis were taken by tries whose reply was lost
        local holdCount = restoreLease == '0' and 0 or tonumber(fields[1]) - 1
        if holdCount > 0 then
            redis.call('hset', hash, owner, holdCount)
            if redis.call('pttl', hash) < tonumber(restoreLease) then
                redis.call('pexpire', hash, restoreLease)
            end
        elseif keepMillis and tonumber(keepMillis) > 0 then
            redis.call('hdel', hash, owner)
            redis.call('hset', hash, 'kept', owner)
            redis.call('pexpire', hash, keepMillis)
        else
            redis.call('del', hash)
            if fields[2] then
                handOff(hash, KEYS[4 * i - 2], KEYS[4 * i - 1], KEYS[4 * i], tonumber(ARGV[3 + 2 * i]))
            end
        end
        reply[i] = holdCount
    end
end
return reply
