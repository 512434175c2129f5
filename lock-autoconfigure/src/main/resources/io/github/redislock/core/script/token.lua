-- Draws a plain lock hold's fencing token when its owner first asks for it, instead of at the everyday
-- acquisition (acquire.lua's flag 3; issue 33; the client caches the answer on its hold, so a re-entry
-- or a second ask costs nothing): the Redis clock in microseconds, read only while the owner still holds
-- the lock, checked in this same call. Holds of one key do not overlap, so a later holder draws its
-- token (at its acquisition, a hand-off or an ask) after this hold ended, and so a greater one (as long
-- as the Redis clock does not go back), whether or not the holders between them asked.
-- KEYS[1]  the lock hash (<key-prefix><key>)
-- ARGV[1]  owner field (<clientId>:<threadId> or a per-invocation owner token)
-- Returns  the token, or -1 when the owner no longer holds the lock (expired, deleted, force-released,
--          or taken by another owner): no token for a hold Redis does not have.
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return -1
end
local clock = redis.call('time')
return tonumber(clock[1]) * 1000000 + tonumber(clock[2])
