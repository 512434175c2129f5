-- Extends the lease of many locks in one call (the watchdog's batch); all KEYS share one hash slot.
-- KEYS[i]    a lock hash
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  the owner field expected in KEYS[i]
-- Returns    the 1-based positions i whose owner no longer holds KEYS[i]; those are not touched.
local lost = {}
for i = 1, #KEYS do
    if redis.call('hexists', KEYS[i], ARGV[i + 1]) == 1 then
        redis.call('pexpire', KEYS[i], ARGV[1])
    else
        lost[#lost + 1] = i
    end
end
return lost
