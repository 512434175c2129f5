-- Releases the naive SET NX lock only when the caller still owns it (compare-and-delete).
-- KEYS[1]  the lock key
-- ARGV[1]  the caller's token, the value it SET
-- Returns  1 when deleted, 0 when the key held another token or did not exist
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
