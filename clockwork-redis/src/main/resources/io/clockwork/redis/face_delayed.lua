--[[
  face_delayed: the delayed elements at one end of the offer order: peeks at the first, or removes up to a limit from
  the head or the tail (a delayed queue's peek, poll, poll(limit) and pollLast). A removed element never reaches the
  destination. Stale ORDER entries met on the way are dropped.

  KEYS[1] pending   ZSET   read; the removed elements' members removed
  KEYS[2] meta      HASH   read; the removed elements' values deleted
  KEYS[3] lost      STRING incremented per element found with its META value evicted
  KEYS[4] order     ZSET   read from the chosen end; removed and stale entries removed
  KEYS[5] values    ZSET   the removed elements' entries removed

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           limit, at least 1 (a peek reads one)
  ARGV[3]           end: 'head' or 'tail'
  ARGV[4]           remove: '1' to remove the elements, '0' to peek

  Reply: {payload...}: in the order met.
  Cost: O((limit + stale entries met) log n).
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local LOST = KEYS[3]
local ORDER = KEYS[4]
local VALUES = KEYS[5]
-- include: clock, face, face_copies, face_payload
local now = now_ms()
local limit = tonumber(ARGV[2])
local tail = ARGV[3] == 'tail'
local take = ARGV[4] == '1'
local reply = {}
local skip = 0 -- live entries a peek passed over
while #reply < limit do
    local at = skip
    if tail then
        at = -1 - skip
    end
    local e = redis.call('ZRANGE', ORDER, at, at)[1]
    if not e then
        break
    end
    local due = due_of(e)
    if not due or due <= now then
        redis.call('ZREM', ORDER, e) -- stale: fell due, or left
    else
        local p = payload_of(e)
        if p then
            reply[#reply + 1] = p
            if take then
                drop(e, p)
            else
                skip = skip + 1
            end
        end
    end
end
return reply
