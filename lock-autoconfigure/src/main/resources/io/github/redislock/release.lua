-- Releases one hold of each of one or more reentrant locks (a multi-lock passes several; all KEYS
-- share one hash slot); only their owner can. Each lock is judged on its own.
-- KEYS[2i-1]  lock hash i
-- KEYS[2i]    its release channel (same hash slot)
-- ARGV[1]     owner field
-- ARGV[i+1]   lease in milliseconds to restore on lock i when holds remain
-- Returns     per lock: -1 when the owner does not hold it (never taken, expired or deleted),
--             the remaining hold count otherwise; 0 means the lock is free and its waiters were told.
local reply = {}
for i = 1, #KEYS / 2 do
    local hash, channel = KEYS[2 * i - 1], KEYS[2 * i]
    if redis.call('hexists', hash, ARGV[1]) == 0 then
        reply[i] = -1
    else
        local holdCount = redis.call('hincrby', hash, ARGV[1], -1)
        if holdCount > 0 then
            redis.call('pexpire', hash, ARGV[i + 1])
        else
            redis.call('del', hash)
            redis.call('publish', channel, 'released')
        end
        reply[i] = holdCount
    end
end
return reply
