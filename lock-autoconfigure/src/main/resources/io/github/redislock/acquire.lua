-- Takes or re-enters one or more reentrant locks, all or nothing (a multi-lock passes several; all
-- KEYS share one hash slot). The same script serves one Redis or each node of a Redlock.
-- KEYS[2i-1]  lock hash i (<key-prefix><key>); one field per owner, value = hold count
-- KEYS[2i]    its fencing-token counter (same hash slot, no expiry)
-- ARGV[1]     lease in milliseconds (the watchdog timeout when the watchdog keeps the lock alive)
-- ARGV[2]     owner field (<clientId>:<threadId> or a per-invocation owner token)
-- ARGV[2+i]   '1' when the client knows of no hold of this owner on lock i: a count Redis still has
--             for it was left by an acquisition whose reply never arrived (a timeout), so the count
--             restarts at 1 and a new token is drawn, instead of a phantom re-entry the owner's single
--             unlock would never undo
-- Returns     {1, holdCount1, token1, holdCount2, token2, ...} when this owner now holds every lock:
--               holdCount 1 = first acquisition, which draws a new token from the counter; a
--               reentrant acquisition returns the token of the hold it re-enters (the counter's
--               value: nobody else can have drawn one while this owner held the lock);
--             {0, i, pttl} when lock i is held by another owner and nothing was taken; pttl is its
--               remaining lease in ms (-1 when the key has no expiry, so the caller cannot know when it ends).
local locks = #KEYS / 2
for i = 1, locks do
    local hash = KEYS[2 * i - 1]
    if redis.call('exists', hash) == 1 and redis.call('hexists', hash, ARGV[2]) == 0 then
        return {0, i, redis.call('pttl', hash)}
    end
end
local reply = {1}
for i = 1, locks do
    local hash, fence = KEYS[2 * i - 1], KEYS[2 * i]
    local holdCount = 1
    if ARGV[2 + i] == '1' then
        redis.call('hset', hash, ARGV[2], 1)
    else
        holdCount = redis.call('hincrby', hash, ARGV[2], 1)
    end
    redis.call('pexpire', hash, ARGV[1])
    local token
    if holdCount == 1 then
        token = redis.call('incr', fence)
    else
        token = tonumber(redis.call('get', fence)) or 0
    end
    reply[#reply + 1] = holdCount
    reply[#reply + 1] = token
end
return reply
