--[[
  ready: priorities. A message may carry a priority, its header clockwork-priority, an integer in [-1000, 1000]
  (higher first; a message without one has 0). A partition whose ORDERED key exists (order.lua sets it before the
  first offer of a message with a priority; nothing removes it) keeps its due messages in READY, a sorted set of the
  same members <seq><id> scored (1000 - priority) * 2^42 + due: the highest priority's earliest due message first,
  and within one score offer order (the member's sequence prefix). A poll of such a partition moves what fell due
  from PENDING to READY, in due order and at most MOVE_LIMIT per call (so a call stays O(MOVE_LIMIT log n): a due
  backlog larger than that joins READY over several polls), then takes from READY's head. A scheduled message is in
  PENDING, in READY or in the cold store, so cancel, reschedule and an offer that replaces look in READY when the
  member is not in PENDING. Due times stay below 2^42 ms (the year 2109), so every score is an exact double.
  READY's prefix is PENDING's key without "pending", like the compact store's keys (cold_keys.lua).
]]
-- include: member, keep, lost, ready_keys

local MOVE_LIMIT = '1000'

-- The priority of a META value "<state> <attempts> <seq><tail>" (meta.lua): its header clockwork-priority, read
-- header by header (a value is counted, so it may hold any byte), or 0 without one.
local function priority_of(v)
    local at = string.find(v, ' ', 3, true) + 17 -- past "<state> <attempts> " and the 16 hex digits of seq
    if string.byte(v, at) == 33 then -- '!': a last error of n bytes
        local n, from = string.match(v, '^!(%d+)!()', at)
        at = from + tonumber(n)
    end
    if string.byte(v, at) ~= 35 then -- '#': no header block
        return 0
    end
    local size, from = string.match(v, '^#(%d+)#()', at)
    local stop = from + tonumber(size)
    while from < stop do
        local name, len, value_at = string.match(v, '^([^=]*)=(%d+):()', from)
        if name == nil then
            return 0
        end
        from = value_at + tonumber(len)
        if name == 'clockwork-priority' then
            return tonumber(string.sub(v, value_at, from - 1)) or 0
        end
    end
    return 0
end

-- Moves up to MOVE_LIMIT messages due by now_s from PENDING to READY, scored by priority; a member whose META value
-- is gone is dropped and counted lost. Returns how many PENDING held (so more are due when it is MOVE_LIMIT) and
-- the META values read, by member, for the take that follows.
local function move_due(now_s)
    local due = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now_s, 'WITHSCORES', 'LIMIT', '0', MOVE_LIMIT)
    local read = {}
    local count = #due / 2
    if count == 0 then
        return 0, read
    end
    local ids = {}
    for i = 1, count do
        ids[i] = id_of(due[2 * i - 1])
    end
    local metas = redis.call('HMGET', META, unpack(ids))
    local scored = {'+inf', KEEP_MEMBER}
    for i = 1, count do
        local v = metas[i]
        if v then
            local m = due[2 * i - 1]
            read[m] = v
            scored[#scored + 1] = string.format('%.0f', (1000 - priority_of(v)) * PRIORITY_SPAN + tonumber(due[2 * i]))
            scored[#scored + 1] = m
        else
            lose()
        end
    end
    redis.call('ZREMRANGEBYRANK', PENDING, '0', count - 1)
    if #scored > 2 then
        redis.call('ZADD', READY, unpack(scored))
    end
    return count, read
end
