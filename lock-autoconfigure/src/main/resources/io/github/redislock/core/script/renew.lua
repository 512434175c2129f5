-- Extends the lease of many locks in one call (the watchdog's batch); all KEYS share one hash slot.
-- KEYS[i]    a lock hash
-- ARGV[1]    lease in milliseconds; a lock with longer left (a re-entry with a longer lease) keeps it
-- ARGV[i+1]  the owner field expected in KEYS[i]
-- Returns    the 1-based positions i whose owner no longer holds KEYS[i]; those are not touched. A key
--            overwritten with another type counts as lost and does not stop the rest of the batch.
local lease = tonumber(ARGV[1])
local lost = {}
for i = 1, #KEYS do
    local held = redis.pcall('hexists', KEYS[i], ARGV[i + 1])
    if held == 1 then
        if redis.call('pttl', KEYS[i]) < lease then
            redis.call('pexpire', KEYS[i], lease)
        end
    else
        lost[#lost + 1] = i
    end
end
return lost
