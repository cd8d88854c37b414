--[[
  poll_rate: poll.lua under the queue's rate limit (include/rate.lua), for a queue built with one, on a partition whose
  scripts may reach partition 0's slot (a standalone server, or partition 0 of a cluster). It takes at most as many
  messages as the limit has permits free now, and records those it took in the log at the same server time as
  their visibility deadlines count from, so the log holds exactly the deliveries made. With no permit free it takes
  nothing and answers the ms until one frees; if messages were due it counts the poll as held back (COUNTERS'
  limited). Without a stored limit it is poll.lua.

  KEYS[1] pending   ZSET   due messages are taken from its head; the sweep reschedules into it; read for a due head
  KEYS[2] inflight  ZSET   the taken members, scored by visibility deadline; the sweep reads and removes from it
  KEYS[3] dead      ZSET   the sweep buries into it
  KEYS[4] meta      HASH   the taken messages' values are read; the sweep rewrites those it moves
  KEYS[5] reason    HASH   written by the sweep for what it buries
  KEYS[6] seq       STRING incremented by the sweep
  KEYS[7] lost      STRING incremented per message found with its state evicted
  KEYS[8] counters  HASH   delivered incremented by the messages taken, limited by a poll held back; retried and
                           dead by the sweep (one HINCRBY each at most)
  KEYS[9] paused    STRING read (with ORDERED, ready.lua) by one MGET: while it exists nothing is taken (pause.lua)
  KEYS[10] rate     ZSET   partition 0's log of grants (include/rate.lua): trimmed, read, and extended by the taken
  KEYS[11] config   HASH   partition 0's: its field rate is the limit
  KEYS[12] signal   LIST   pushed to pass a wake-up on when more is ready (absent in a cluster's other partitions)
  (REVOKED, the partition's <prefix>revoked: the sweep records the deliveries it expires, revoked.lua)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": maxAttempts
  ARGV[2]           sweep limit: at most this many expired deliveries are handled
  ARGV[3]           visibility ms: a taken message comes back after this long unless acked or nacked
  ARGV[4]           n: at most this many messages are taken
  ARGV[5]           how many polls to count as held back if the limit keeps this call from due messages (0 or 1:
                    a poll counts once however many calls it makes)

  Reply: {taken, nextEventMs, clientMustSignal, lost, limited, member1, meta1, ...}: poll.lua's, with limited 1 when
         the limit kept this call from due messages; nextEventMs is then, or when the limit cut the take short, the
         ms until the next permit frees.
  Cost: poll.lua's, plus HGET config and O(log m) on RATE (m: the milliseconds of the interval that granted
        permits): two ZREVRANGEBYSCORE, a ZREMRANGEBYSCORE, and a ZADD (with a ZREM within one millisecond) when it
        took something.
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local DEAD = KEYS[3]
local META = KEYS[4]
local REASON = KEYS[5]
local SEQ = KEYS[6]
local LOST = KEYS[7]
local COUNTERS = KEYS[8]
local PAUSED = KEYS[9]
local RATE = KEYS[10]
local CONFIG = KEYS[11]
local SIGNAL = KEYS[12]
-- include: clock, take_due, rate, rate_limit, cold, ready_keys, counters, group_keys

-- Whether a poll could take something now but for the limit: not paused, and a message due in PENDING, READY, a
-- group's turn (groups.lua) or a started chunk of the compact store, or a delivery whose visibility ran out (the sweep
-- makes it due again).
local function due_now(now)
    if redis.call('EXISTS', PAUSED) == 1 then
        return false
    end
    local now_s = string.format('%d', now)
    if redis.call('ZRANGEBYSCORE', PENDING, '-inf', now_s, 'LIMIT', '0', '1')[1]
            or redis.call('EXISTS', READY) == 1 or redis.call('EXISTS', RING) == 1
            or redis.call('ZRANGEBYSCORE', INFLIGHT, '-inf', now_s, 'LIMIT', '0', '1')[1] then
        return true
    end
    local first = cold_head()
    return first ~= nil and first <= now
end

local n = tonumber(ARGV[4])
local permits, interval = rate_limit()
if not permits then
    local r = take_due(n, ARGV[2], tonumber(ARGV[3]))
    table.insert(r, 5, 0)
    return r
end
local now = now_ms()
local free, wait, last = rate_free(RATE, now, permits, interval)
if free == 0 then
    if due_now(now) then
        count_events('limited', tonumber(ARGV[5]))
        return {0, wait, 0, 0, 1}
    end
    return {0, wait, 0, 0, 0}
end
local r = take_due(math.min(n, free), ARGV[2], tonumber(ARGV[3]), now)
local taken = r[1]
if taken > 0 then
    rate_grant(RATE, now, taken, last)
    if taken == free and free < n then
        -- The limit cut the take short: the caller waits for the next permit, not for the next due message.
        local _, next_free = rate_free(RATE, now, permits, interval)
        r[2] = next_free
    end
end
table.insert(r, 5, 0)
return r
