-- Takes, releases or gives up waiting for a fair lock: owners are granted it in the order they queued.
-- KEYS[1]  the lock hash (as for the plain lock: one field per owner, value = hold count)
-- KEYS[2]  the queue: a list of waiting owners, oldest first
-- KEYS[3]  sorted set of waiting owners by the deadline (ms since the epoch, Redis clock) after
--          which a waiter that stopped refreshing its place (crashed, gone) is dropped
-- KEYS[4]  the fencing-token counter: expires with the lease it was drawn for, deleted when the lock is
--          freed; a missing counter restarts from the Redis clock in microseconds (see acquire.lua)
-- ARGV[1]  'acquire', 'release' or 'leave' (stop waiting)
-- ARGV[2]  owner field
-- ARGV[3]  acquire: lease in ms; release: lease in ms to restore when holds remain (neither a re-entry
--          nor a release shortens the lock's remaining life), '0' for the owner's last hold as its client
--          counts: the lock is freed whatever Redis counts (more were taken by re-entries whose reply was lost)
-- ARGV[4]  acquire: how long (ms) the waiter's place is kept without a refresh; 0 = try without queueing
-- ARGV[5]  prefix of the waiters' own wake-up channels (the owner follows it, the lock's hash tag is in
--          it, so they live in the lock's slot); only the next one is told
-- ARGV[6]  acquire: '1' when the client knows of no hold of this owner: a count Redis still has for it
--          was left by an acquisition whose reply never arrived, so it restarts at 1 with a new token
-- ARGV[7]  'publish' or 'spublish': how to publish on the turn channels (sharded on a Redis Cluster
--          that supports it)
-- Returns  acquire: {1, holdCount, token} (a token is drawn on the first acquisition only), or
--                   {0, 1, ms}: how long until the holder's lease or the queue head's place runs out
--                   (-1 unknown);
--          release: -1 when the owner does not hold the lock, else the holds left (0 = freed, next waiter told);
--          leave:   0.
local hash, queue, waiters, fence = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local action, owner = ARGV[1], ARGV[2]

local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

local function extendTo(ms)
    if redis.call('pttl', hash) < tonumber(ms) then
        redis.call('pexpire', hash, ms)
    end
end

local function wakeNext()
    local head = redis.call('lindex', queue, 0)
    if head then
        redis.call(ARGV[7], ARGV[5] .. head, 'your-turn')
    end
end

-- Waiters that stopped refreshing their place leave the queue.
local dropped = redis.call('zrangebyscore', waiters, '-inf', now)
for _, gone in ipairs(dropped) do
    redis.call('lrem', queue, 0, gone)
    redis.call('zrem', waiters, gone)
end
local head = redis.call('lindex', queue, 0)
while head and not redis.call('zscore', waiters, head) do
    redis.call('lpop', queue) -- its place expired apart from the queue
    dropped[#dropped + 1] = head
    head = redis.call('lindex', queue, 0)
end
if #dropped > 0 and redis.call('exists', hash) == 0 then
    wakeNext()
end

if action == 'acquire' then
    local function wait(ms)
        local keepFor = tonumber(ARGV[4])
        if keepFor > 0 then
            if not redis.call('zscore', waiters, owner) then
                redis.call('rpush', queue, owner)
            end
            redis.call('zadd', waiters, now + keepFor, owner)
            local last = redis.call('zrange', waiters, -1, -1, 'withscores')
            local ttl = math.max(1, tonumber(last[2]) - now)
            redis.call('pexpire', queue, ttl)
            redis.call('pexpire', waiters, ttl)
        end
        return {0, 1, ms}
    end
    local function take()
        redis.call('hset', hash, owner, 1)
        redis.call('pexpire', hash, ARGV[3])
        local token = redis.call('incr', fence)
        if token == 1 then
            token = clock[1] .. string.sub('00000' .. clock[2], -6)
            redis.call('set', fence, token)
        end
        redis.call('pexpire', fence, ARGV[3])
        return {1, 1, tonumber(token)}
    end
    if redis.call('exists', hash) == 1 then
        if redis.call('hexists', hash, owner) == 1 then
            if ARGV[6] == '1' then
                return take()
            end
            local holdCount = redis.call('hincrby', hash, owner, 1)
            extendTo(ARGV[3])
            return {1, holdCount, tonumber(redis.call('get', fence)) or 0}
        end
        return wait(redis.call('pttl', hash))
    end
    if head and head ~= owner then
        return wait(math.max(1, tonumber(redis.call('zscore', waiters, head)) - now))
    end
    if head then
        redis.call('lpop', queue)
        redis.call('zrem', waiters, owner)
    end
    return take()
end

if action == 'release' then
    if redis.call('hexists', hash, owner) == 0 then
        return -1
    end
    local holdCount = ARGV[3] == '0' and 0 or redis.call('hincrby', hash, owner, -1)
    if holdCount > 0 then
        extendTo(ARGV[3])
        return holdCount
    end
    redis.call('del', hash, fence)
    wakeNext()
    return 0
end

local wasNext = redis.call('lindex', queue, 0) == owner
redis.call('lrem', queue, 0, owner)
redis.call('zrem', waiters, owner)
if wasNext and redis.call('exists', hash) == 0 then
    wakeNext()
end
return 0
