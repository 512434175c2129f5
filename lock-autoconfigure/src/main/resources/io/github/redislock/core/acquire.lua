-- Takes or re-enters one or more reentrant locks, all or nothing (a multi-lock passes several; all
-- KEYS share one hash slot). The same script serves one Redis or each node of a Redlock.
-- KEYS[2i-1]  lock hash i (<key-prefix><key>); one field per owner, value = hold count
-- KEYS[2i]    its fencing-token counter (same hash slot); it expires with the lease it was drawn for and a
--             final release deletes it; a missing counter restarts from the Redis clock in microseconds,
--             so tokens keep rising per key after it expired or Redis lost its data
-- KEYS[3], KEYS[4]  only when ARGV[3] > 0 (then there is exactly one lock): its wait queue (a list of
--             members, oldest first) and the members' deadlines (a sorted set, ms on the Redis clock);
--             a release hands the lock to the queue's first live member (see release.lua)
-- ARGV[1]     lease in milliseconds (the watchdog timeout when the watchdog keeps the lock alive); a
--             re-entry only ever lengthens the lock's remaining life, never shortens it
-- ARGV[2]     owner field (<clientId>:<threadId> or a per-invocation owner token)
-- ARGV[3]     when blocked, how long (ms) to keep this owner's place in the wait queue unless it tries
--             again; 0 = do not queue (a single try, or a multi-lock)
-- ARGV[4]     with ARGV[3] > 0, the queue member: '<lease ms>|<n>|<inbox><wait id>:<owner>' (see
--             release.lua, which parses it, and LockCommands.queueMember); the wait id tells this
--             wait apart from the same owner's earlier ones, so a late hand-off message is not mistaken
--             for one to this wait
-- ARGV[5]     '1' when this wait may still have a place in the wait queue from an earlier try, which
--             it gives up when it gets the lock; '0' saves that work
-- ARGV[5+i]   '1' when the client knows of no hold of this owner on lock i: a count Redis still has
--             for it was left by an acquisition whose reply never arrived (a timeout) or by a hand-off
--             whose message was missed, so the count restarts at 1 and a new token is drawn, instead
--             of a phantom re-entry the owner's single unlock would never undo
-- Returns     {1, holdCount1, token1, holdCount2, token2, ...} when this owner now holds every lock:
--               holdCount 1 = first acquisition, which draws a new token from the counter; a
--               reentrant acquisition returns the counter's value (nobody else can have drawn one
--               while this owner held the lock), or 0 when the counter expired during a long hold:
--               the client keeps the token of its first acquisition;
--             {0, i, pttl} when lock i is held by another owner and nothing was taken; pttl is its
--               remaining lease in ms (-1 when the key has no expiry, so the caller cannot know when it ends).
local keepPlace = tonumber(ARGV[3])
local locks = keepPlace > 0 and 1 or #KEYS / 2
local member = ARGV[4]
for i = 1, locks do
    local hash = KEYS[2 * i - 1]
    if redis.call('exists', hash) == 1 and redis.call('hexists', hash, ARGV[2]) == 0 then
        local pttl = redis.call('pttl', hash)
        if keepPlace > 0 then
            local queue, deadlines = KEYS[3], KEYS[4]
            local clock = redis.call('time')
            local deadline = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) + keepPlace
            if redis.call('zadd', deadlines, deadline, member) == 1 then
                redis.call('rpush', queue, member)
            end
            -- Both live as long as their latest deadline: nothing is left behind when every waiter is gone.
            if redis.call('pttl', queue) < keepPlace then
                redis.call('pexpire', queue, keepPlace)
                redis.call('pexpire', deadlines, keepPlace)
            end
        end
        return {0, i, pttl}
    end
end
if keepPlace > 0 and ARGV[5] == '1' and redis.call('zrem', KEYS[4], member) == 1 then
    redis.call('lrem', KEYS[3], 1, member)
end
local lease = tonumber(ARGV[1])
local reply = {1}
for i = 1, locks do
    local hash, fence = KEYS[2 * i - 1], KEYS[2 * i]
    local holdCount = 1
    if ARGV[5 + i] == '1' then
        redis.call('hset', hash, ARGV[2], 1)
    else
        holdCount = redis.call('hincrby', hash, ARGV[2], 1)
    end
    local token
    if holdCount == 1 then
        redis.call('pexpire', hash, lease)
        token = redis.call('incr', fence)
        if token == 1 then
            -- The counter was missing: start it from the clock, above every token drawn before.
            local clock = redis.call('time')
            local seed = clock[1] .. string.sub('00000' .. clock[2], -6)
            redis.call('set', fence, seed)
            token = tonumber(seed)
        end
        redis.call('pexpire', fence, lease)
    else
        if redis.call('pttl', hash) < lease then
            redis.call('pexpire', hash, lease)
        end
        token = tonumber(redis.call('get', fence)) or 0
    end
    reply[#reply + 1] = holdCount
    reply[#reply + 1] = token
end
return reply
