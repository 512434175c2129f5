-- Extends many owners' leases kept in lease sets (read-write locks) in one call; all KEYS share one hash slot.
-- KEYS[2i-1] a lock hash
-- KEYS[2i]   its sorted set of owners by lease deadline (ms, Redis clock)
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  the owner whose lease in KEYS[2i] is extended
-- Returns    the 1-based positions i whose owner no longer holds a lease (ended, deleted, or a key
--            overwritten with another type); those are not touched.
local clock = redis.call('time')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local lost = {}
for i = 1, #KEYS / 2 do
    local hash, leases, owner = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
    local deadline = redis.pcall('zscore', leases, owner) -- an error reply (WRONGTYPE) counts as lost, as in renew.lua
    if type(deadline) == 'string' and tonumber(deadline) > now and redis.call('exists', hash) == 1 then
        redis.call('zadd', leases, 'GT', now + tonumber(ARGV[1]), owner)
        local last = redis.call('zrange', leases, -1, -1, 'withscores')
        local ttl = math.max(1, tonumber(last[2]) - now)
        redis.call('pexpire', hash, ttl)
        redis.call('pexpire', leases, ttl)
    else
        lost[#lost + 1] = i
    end
end
return lost
