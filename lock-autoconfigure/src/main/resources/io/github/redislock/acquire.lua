-- Takes or re-enters a reentrant lock.
-- KEYS[1]  the lock hash (<key-prefix><key>); one field per owner, value = hold count
-- ARGV[1]  lease in milliseconds (the watchdog timeout when the watchdog keeps the lock alive)
-- ARGV[2]  owner field (<clientId>:<threadId> or a per-invocation owner token)
-- ARGV[3]  '1' when the owner holds no hold as far as the client knows: a count Redis still has for it
--          was left by an acquisition whose reply never reached the client (a timeout), so it restarts at 1
-- Returns  {1, holdCount} when this owner now holds the lock (holdCount 1 = first acquisition),
--          {0, pttl}      when another owner holds it; pttl is the holder's remaining lease in ms
--                         (-1 when the key has no expiry, so the caller cannot know when it ends).
if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    local holdCount = 1
    if ARGV[3] == '1' then
        redis.call('hset', KEYS[1], ARGV[2], 1)
    else
        holdCount = redis.call('hincrby', KEYS[1], ARGV[2], 1)
    end
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {1, holdCount}
end
return {0, redis.call('pttl', KEYS[1])}
