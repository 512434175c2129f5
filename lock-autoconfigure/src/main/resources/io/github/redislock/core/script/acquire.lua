-- Takes or re-enters one or more reentrant locks, all or nothing (a multi-lock passes several; all
-- KEYS share one hash slot). The same script serves one Redis or each node of a Redlock.
-- The uncontended first acquisition, the everyday case, runs 3 commands (PTTL, HSET, PEXPIRE) and draws
-- no fencing token unless flag 3 asks for it (TIME, a 4th): most holders never read theirs, and one that
-- does draws it later with token.lua, inside its hold (issue 33). Every other first hold draws its token
-- here: the Redis clock, read once per call, so no counter key has to be written, expired or deleted.
-- Each lock's remaining life is read once, up front: it tells a free lock (-2),
-- is the blocked reply, and decides whether a re-entry or a restarted count lengthens the lease.
-- KEYS[i]     lock hash i (<key-prefix><key>); one field per owner, value = hold count; a 'waiters'
--             field (see below) once a waiter blocked on it
-- KEYS[2], KEYS[3]  only when queuing (ARGV[4]; then there is exactly one lock, KEYS[1]): its wait queue (a
--             list of members, oldest first) and the members' deadlines (a sorted set, ms on the Redis
--             clock); a release hands the lock to the queue's first live member (see release.lua)
-- ARGV[1]     lease in milliseconds (the watchdog timeout when the watchdog keeps the lock alive); a
--             re-entry only ever lengthens the lock's remaining life, never shortens it
-- ARGV[2]     owner field (<clientId>:<threadId> or a per-invocation owner token)
-- ARGV[3]     the flags, one character each, '1' for yes and '0' for no; its length is 3 + the number of
--             locks. Flag 1: when queuing, this wait may still have a place in the wait queue from an
--             earlier try, which it gives up when it gets the lock ('0' saves that work).
--             Flag 2: the caller waits if blocked: the blocking lock's hash gets the field 'waiters',
--             which tells its release to look at the queue and publish (a release of a lock without it
--             skips both); when queuing it is set in any case.
--             Flag 3: the everyday case draws its token now (the async and reactive lockers, whose handles
--             answer fencingToken() without a round trip); '0' leaves it undrawn.
--             Flag 3+i: the client knows of no hold of this owner on lock i: a count Redis still has
--             for it was left by an acquisition whose reply never arrived (a timeout) or by a hand-off
--             whose message was missed, so the count restarts at 1 and a new token is drawn, instead
--             of a phantom re-entry the owner's single unlock would never undo; the key's remaining
--             life is kept when longer than the lease. The client sends it for an owner that no other
--             acquisition of is in flight (LockAttempt.turn): else two would both restart the count
-- ARGV[4]     only to queue when blocked (a wait for a single lock): how long (ms) to keep this owner's
--             place in the wait queue unless it tries again
-- ARGV[5]     with ARGV[4], the queue member: '<lease ms>|<n>|<inbox><wait id>:<owner>' (see
--             release.lua, which parses it, and LockCommands.queueMember); the wait id tells this
--             wait apart from the same owner's earlier ones, so a late hand-off message is not mistaken
--             for one to this wait
-- Returns     an integer, not a table, for a first acquisition of a single lock that was free and
--               leaves no queue place behind (the everyday case), hold count 1: with flag 3 the fencing
--               token as below, else 1 (no token drawn: a token is at least a clock in microseconds);
--             {1, holdCount1, token1, holdCount2, token2, ...} otherwise when this owner now holds every lock:
--               holdCount 1 = first acquisition, whose fencing token is the Redis clock in
--               microseconds (TIME); a token taken over in a hand-off is at least one above the
--               releasing owner's (release.lua), so per key tokens rise as long as the Redis clock
--               does not go back; a reentrant acquisition returns 0: the client keeps the token of
--               the hold it enters;
--             {0, i, pttl} when lock i is held by another owner and nothing was taken; pttl is its
--               remaining lease in ms (-1 when the key has no expiry, so the caller cannot know when it ends).
local flags = ARGV[3]
local locks = #flags - 3
local owner = ARGV[2]
local placeToGiveUp = ARGV[4] and string.sub(flags, 1, 1) == '1'
-- The everyday case first, with no table or closure built for it: one free lock, and no queue place
-- this wait must give up. It does what the loops below do for it (HSET, PEXPIRE, and TIME only when flag 3
-- asks), and replies with the token alone, or 1. HSET's value is the string '1', which Redis need not format.
local firstPttl = redis.call('pttl', KEYS[1])
if firstPttl == -2 and locks == 1 and not placeToGiveUp then
    redis.call('hset', KEYS[1], owner, '1')
    redis.call('pexpire', KEYS[1], ARGV[1])
    if string.sub(flags, 3, 3) ~= '1' then
        return 1
    end
    local clock = redis.call('time')
    return tonumber(clock[1]) * 1000000 + tonumber(clock[2])
end
local function clockMicros()
    local clock = redis.call('time')
    return tonumber(clock[1]) * 1000000 + tonumber(clock[2])
end
local function flag(i)
    return string.sub(flags, i, i) == '1'
end
local keepPlace = ARGV[4] and tonumber(ARGV[4]) or 0
local member = ARGV[5]
local pttls = {}
for i = 1, locks do
    local hash = KEYS[i]
    local pttl = i == 1 and firstPttl or redis.call('pttl', hash)
    if pttl ~= -2 and redis.call('hexists', hash, owner) == 0 then
        if keepPlace > 0 then
            local queue, deadlines = KEYS[2], KEYS[3]
            local clock = redis.call('time')
            local deadline = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) + keepPlace
            if redis.call('zadd', deadlines, deadline, member) == 1 then
                redis.call('rpush', queue, member)
            end
            -- Both live as long as their latest deadline: nothing is left behind when every waiter is gone.
            if redis.call('pttl', queue) < keepPlace then
                redis.call('pexpire', queue, keepPlace)
                redis.call('pexpire', deadlines, keepPlace)
            end
        end
        if keepPlace > 0 or flag(2) then
            redis.call('hset', hash, 'waiters', 1)
        end
        return {0, i, pttl}
    end
    pttls[i] = pttl
end
-- A waiter that leaves the queue for a free lock leaves the others behind it: its release must look for them.
local othersQueued = false
if placeToGiveUp then
    if redis.call('zrem', KEYS[3], member) == 1 then
        redis.call('lrem', KEYS[2], 1, member)
    end
    othersQueued = redis.call('llen', KEYS[2]) > 0
end
local lease = tonumber(ARGV[1])
local micros
local reply = {1}
for i = 1, locks do
    local hash = KEYS[i]
    local holdCount = 1
    -- Whether the count restarts over a hold Redis still had (see flag 3+i): that hold's longer life is kept.
    local restarted = false
    if flag(3 + i) then
        restarted = redis.call('hset', hash, owner, 1) == 0
        if othersQueued then
            redis.call('hset', hash, 'waiters', 1)
        end
    else
        holdCount = redis.call('hincrby', hash, owner, 1)
        if holdCount == 1 and othersQueued then
            redis.call('hset', hash, 'waiters', 1)
        end
    end
    local token = 0
    if holdCount == 1 then
        micros = micros or clockMicros()
        token = micros
        if not restarted or pttls[i] < lease then
            redis.call('pexpire', hash, lease)
        end
    elseif pttls[i] < lease then
        redis.call('pexpire', hash, lease)
    end
    reply[#reply + 1] = holdCount
    reply[#reply + 1] = token
end
return reply
