--[[
  ready: priorities. A message may carry a priority, its header clockwork-priority, an integer in [-1000, 1000] (higher
  first; a message without one has 0). A partition whose ORDERED key exists (order.lua sets it before the first offer of
  a message with a priority; nothing removes it) keeps its due messages in READY, a sorted set of the same members
  <seq><id> scored (1000 - priority) * 2^42 + due: the highest priority's earliest due message first, and within one
  score offer order (the member's sequence prefix). An offer of a message due at once with a priority writes it straight
  into READY (offer.lua). A poll of such a partition takes what fell due out of PENDING, in due order and at most
  MOVE_LIMIT per call (so a call stays O(MOVE_LIMIT log n): a due backlog larger than that joins READY over several
  polls), then takes READY's head, merged with the few that just fell due (take_ready) so that the ones taken at once
  never touch READY. A scheduled message is in PENDING, in READY or in the cold store, so cancel, reschedule and an
  offer that replaces look in READY when the member is not in PENDING. Due times stay below 2^42 ms (the year 2109), so
  every score is an exact double. READY's prefix is PENDING's key without "pending", like the compact store's keys
  (cold_keys.lua).
]]
-- include: member, keep, lost, ready_keys, priority

local MOVE_LIMIT = '1000'

-- The priority of a META value "<state> <attempts> <seq><tail>" (meta.lua), read from its tail (priority.lua).
local function priority_of(v)
    return tail_priority(v, string.find(v, ' ', 3, true) + 17) -- past "<state> <attempts> " and 16 hex digits
end

-- Takes up to MOVE_LIMIT messages due by now_s out of PENDING, reading their META values and priorities; a member
-- whose META value is gone is dropped and counted lost. Returns how many PENDING held (so more are due when it is
-- MOVE_LIMIT), the META values read, by member, and the moved messages as {member, READY score}, in due order, for
-- the caller to take or to file in READY (file_ready).
local function move_due(now_s)
    local due = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now_s, 'WITHSCORES', 'LIMIT', '0', MOVE_LIMIT)
    local read, moved = {}, {}
    local count = #due / 2
    if count == 0 then
        return 0, read, moved
    end
    local ids = {}
    for i = 1, count do
        ids[i] = id_of(due[2 * i - 1])
    end
    local metas = redis.call('HMGET', META, unpack(ids))
    for i = 1, count do
        local v = metas[i]
        if v then
            local m = due[2 * i - 1]
            read[m] = v
            moved[#moved + 1] = {m, ready_score(priority_of(v), tonumber(due[2 * i]))}
        else
            lose()
        end
    end
    redis.call('ZREMRANGEBYRANK', PENDING, '0', count - 1)
    return count, read, moved
end

-- Files moved messages (move_due) from index `from` on in READY.
local function file_ready(moved, from)
    if from <= #moved then
        local scored = {'+inf', KEEP_MEMBER}
        for i = from, #moved do
            scored[#scored + 1] = string.format('%d', moved[i][2]) -- exact: scores stay below 2^53
            scored[#scored + 1] = moved[i][1]
        end
        redis.call('ZADD', READY, unpack(scored))
    end
end

-- Whether READY entry a ({member, score}) goes before b: the lower score, then the lower member, as a sorted set
-- orders them.
local function before(a, b)
    return a[2] < b[2] or (a[2] == b[2] and a[1] < b[1])
end

-- The first n due messages by priority: READY's head merged with messages that just fell due (move_due), when they
-- are few, so the ones taken at once never touch READY; else all of them go to READY first. Removes the ones taken
-- from READY, files the others there, and returns the members taken, whether more are ready, and the META values
-- read by member.
local function take_ready(n, now_s)
    local count, read, moved = move_due(now_s)
    local heads = {}
    if #moved == 0 or #moved > n + 8 then
        file_ready(moved, 1)
        heads = redis.call('ZRANGEBYSCORE', READY, '-inf', '(+inf', 'LIMIT', '0', n == 1 and '2' or n + 1)
        local k = math.min(n, #heads)
        if k > 0 then
            redis.call('ZREMRANGEBYRANK', READY, '0', k == 1 and '0' or k - 1)
        end
        local more = #heads > k or count == tonumber(MOVE_LIMIT)
        heads[k + 1], heads[k + 2] = nil, nil
        return heads, more, read
    end
    table.sort(moved, before)
    local r = redis.call('ZRANGEBYSCORE', READY, '-inf', '(+inf', 'WITHSCORES', 'LIMIT', '0', n == 1 and '2' or n + 1)
    local i, j = 1, 1 -- next of READY's (pairs in r) and of moved
    while #heads < n and (2 * i <= #r or j <= #moved) do
        local e = moved[j]
        if 2 * i <= #r and (e == nil or not before(e, {r[2 * i - 1], tonumber(r[2 * i])})) then
            heads[#heads + 1] = r[2 * i - 1]
            i = i + 1
        else
            heads[#heads + 1] = e[1]
            j = j + 1
        end
    end
    if i > 1 then
        redis.call('ZREMRANGEBYRANK', READY, '0', i - 2)
    end
    file_ready(moved, j)
    return heads, 2 * i <= #r or j <= #moved or count == tonumber(MOVE_LIMIT), read
end
