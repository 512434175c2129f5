-- Releases one hold of a reentrant lock; only its owner can.
-- KEYS[1]  the lock hash
-- KEYS[2]  the lock's release channel (same hash slot as KEYS[1])
-- ARGV[1]  owner field
-- ARGV[2]  lease in milliseconds to restore when holds remain
-- Returns  -1 when the owner does not hold the lock (never taken, expired or deleted),
--          the remaining hold count otherwise; 0 means the lock is free and waiters were told.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return -1
end
local holdCount = redis.call('hincrby', KEYS[1], ARGV[1], -1)
if holdCount > 0 then
    redis.call('pexpire', KEYS[1], ARGV[2])
    return holdCount
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], 'released')
return 0
