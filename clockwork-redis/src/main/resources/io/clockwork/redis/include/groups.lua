--[[
  groups: fair groups. A message may name a group, its header clockwork-group (group_tail.lua). A partition whose
  GROUPED key exists (group.lua sets it before the first offer of a message with a group; nothing removes it) keeps
  its due messages in one ready set per group: a named group's is GROUP_PREFIX .. <group>, the messages without a
  group form the unnamed group, whose set is READY (ready.lua), all scored as READY is, (1000 - priority) * 2^42 +
  due. RING holds the groups whose turn may come, the unnamed one as '' (a group is never empty), scored
  level * 2^42 + ticket * TURN + used: level is 1000 - the priority of the group's first ready message, ticket the
  group's place in its level's line (deficit round robin), used its deliveries in its current turn (fewer than its
  weight). A take takes the first group's first message; the group keeps its turn (used + 1) until it used its
  weight, then goes to the back of its level's line (a new ticket: next_turn) with a full turn, as does a group that
  joins the ring, so it neither starves the others nor is starved. Messages that fall due (move_due, or an
  offer due at once) join their group's set; a group whose first message's priority rises moves to that level.
  A named group leaves the ring while it has no ready message, while it has maxInFlightPerGroup deliveries in flight
  (GFLIGHT, incremented by a take, decremented when the delivery ends: group_release) and while it waits for a permit
  of its rate limit (GWAIT, until the permit frees; its log is GROUP_LOG .. <group>, rate.lua's structure); it joins
  again when that ends (group_sync). Removals from a group's set (cancel, reschedule, replace) leave RING as it is: a
  take that meets a group whose set is empty or whose first message is at another level sets it right. A take of a
  named group's message scores its delivery's visibility deadline with a half millisecond (HALF), so that an ack knows
  without a read whether the delivery holds a group's slot. GCONF holds the settings: max (maxInFlightPerGroup), rate
  ("<permits> <interval ms>"), weighted (set when some group's weight is not 1) and w:<group> (its weight); GROUPED's
  value carries a copy of the first three (group_settings).
]]
-- include: group_keys, ready_keys

-- per call {
local group_conf = false
local turn_next = 0 -- the next of the tickets this call reserved (reserve_turns), while at most turn_last
local turn_last = -1
-- per call }
local TURN = 1024 -- a turn's span in a RING score: a weight is at most 1000
local TICKET_CAP = 4294967295 -- 2^32 - 1 turns fit in a level's span (PRIORITY_SPAN / TURN)
local RENUMBER_CHUNK = 1000 -- RING entries rewritten per ZADD when renumbering (unpack's stack stays small)
local HALF = '.5' -- appended to a named group's delivery's visibility deadline in INFLIGHT
local NO_SETTINGS = '2' -- GROUPED's value without group settings (group_settings)

-- The group settings, read once per call from GROUPED's value v (the caller's read of it, else read here): "2" when
-- there are none, else "2 <max> <permits> <interval ms> <weighted>" (0 for an option not set), the copy of GCONF's
-- max, rate and weighted that group.lua writes with them, so that a poll reads them in the MGET it makes anyway. A
-- partition marked without the copy ("1") reads GCONF.
local function group_settings(v)
    if not group_conf then
        if v == nil then
            v = redis.call('GET', GROUPED)
        end
        if v == NO_SETTINGS then
            group_conf = {}
        elseif v and v ~= '1' then
            local max, permits, interval, weighted = string.match(v, '^2 (%d+) (%d+) (%d+) (%d)$')
            group_conf = {max = max ~= '0' and tonumber(max) or nil, weighted = weighted == '1' or nil}
            if permits ~= '0' then
                group_conf.permits, group_conf.interval = tonumber(permits), tonumber(interval)
            end
        else
            local c = redis.call('HMGET', GCONF, 'max', 'rate', 'weighted')
            group_conf = {max = tonumber(c[1]), weighted = c[3]}
            if c[2] then
                local permits, interval = string.match(c[2], '^(%d+) (%d+)$')
                group_conf.permits, group_conf.interval = tonumber(permits), tonumber(interval)
            end
        end
    end
    return group_conf
end

-- The ready set of group g ('' is the unnamed group: READY).
local function group_set(g)
    if g == '' then
        return READY
    end
    return GROUP_PREFIX .. g
end

-- The level of a READY score: 1000 - its priority.
local function level_of(score)
    return math.floor(score / PRIORITY_SPAN)
end

-- The level of group g's first ready message, or nil if it has none.
local function head_level(g)
    local head = redis.call('ZRANGEBYSCORE', group_set(g), '-inf', '(+inf', 'WITHSCORES', 'LIMIT', '0', '1')
    return head[2] and level_of(tonumber(head[2])) or nil
end

-- Renumbers RING's tickets 0, 1, ... in RING's order, keeping each entry's level and turns used; returns how many
-- entries RING holds.
local function ring_renumber()
    local all = redis.call('ZRANGE', RING, '0', '-1', 'WITHSCORES')
    local scored = {}
    for i = 1, #all, 2 do
        local s = tonumber(all[i + 1])
        scored[#scored + 1] = string.format('%d', level_of(s) * PRIORITY_SPAN + (i - 1) / 2 * TURN + s % TURN)
        scored[#scored + 1] = all[i]
        if #scored == 2 * RENUMBER_CHUNK or i + 1 == #all then
            redis.call('ZADD', RING, unpack(scored))
            scored = {}
        end
    end
    return #all / 2
end

-- Reserves `want` tickets for this call's turns (next_turn) from GTURN, the last ticket given at any level, so each
-- is past every one given before; those the call does not give are skipped. A new GTURN (none given yet, or its key
-- lost while RING holds groups) or one that nears the span of a level's scores renumbers RING from 0 first (O(g),
-- once per 2^32 turns): returns whether it did, so that a caller holding RING's scores reads them again.
local function reserve_turns(want)
    turn_last = redis.call('INCRBY', GTURN, want)
    local renumbered = turn_last == want or turn_last >= TICKET_CAP
    if renumbered then
        turn_last = ring_renumber() + want
        redis.call('SET', GTURN, string.format('%d', turn_last))
    end
    turn_next = turn_last - want + 1
    return renumbered
end

-- The score of the next turn at a level: behind every group there, with a full turn; reserves one ticket when this
-- call has none left.
local function next_turn(level)
    if turn_next > turn_last then
        reserve_turns(1)
    end
    local ticket = turn_next
    turn_next = ticket + 1
    return string.format('%d', level * PRIORITY_SPAN + ticket * TURN)
end

-- Puts group g in RING at a level, behind the groups there, with a full turn.
local function ring_join(g, level)
    redis.call('ZADD', RING, next_turn(level), g)
end

-- Whether group g may take its turn: the unnamed group always, a named one below its in-flight limit and not waiting
-- for a permit.
local function group_eligible(g)
    if g == '' then
        return true
    end
    local conf = group_settings()
    if conf.max and (tonumber(redis.call('HGET', GFLIGHT, g)) or 0) >= conf.max then
        return false
    end
    return not redis.call('ZSCORE', GWAIT, g)
end

-- Brings group g's RING entry in line: at its first ready message's level if it has one and may take its turn
-- (keeping its place when it is at that level already), else out. Returns whether it is in RING.
local function group_sync(g)
    local level = head_level(g)
    local s = redis.call('ZSCORE', RING, g)
    if level and group_eligible(g) then
        if not s or level_of(tonumber(s)) ~= level then
            ring_join(g, level)
        end
        return true
    end
    if s then
        redis.call('ZREM', RING, g)
    end
    return false
end

-- Files ready messages of group g in its set ({score, member, score, member, ...}, the scores as strings) and brings
-- the group's RING entry in line where they may have changed it; returns how many went to a named group's set.
local function group_file(g, scored)
    redis.call('ZADD', group_set(g), unpack(scored))
    local best = level_of(tonumber(scored[1]))
    for i = 3, #scored, 2 do
        best = math.min(best, level_of(tonumber(scored[i])))
    end
    local s = redis.call('ZSCORE', RING, g)
    if not s or level_of(tonumber(s)) > best then
        group_sync(g)
    end
    return g ~= '' and #scored / 2 or 0
end

-- Files ready messages in their groups' sets (group_file): by_group maps a group to {score, member, ...}. Counts the
-- named groups' in GCOUNT.
local function group_add(by_group)
    local named = 0
    for g, scored in pairs(by_group) do
        named = named + group_file(g, scored)
    end
    if named > 0 then
        redis.call('INCRBY', GCOUNT, named)
    end
end

-- Ends a delivery's hold on a slot of named group g: its count in flight drops, and a group that was at its limit
-- takes its turn again if it has ready messages. Returns whether it did (a poller may take one now).
local function group_release(g)
    local left = redis.call('HINCRBY', GFLIGHT, g, '-1')
    if left <= 0 then
        redis.call('HDEL', GFLIGHT, g)
    end
    local max = group_settings().max
    return max ~= nil and left == max - 1 and group_sync(g)
end

-- Takes out a scheduled member from named group g's set; 1 if it was there.
local function group_unschedule(g, m)
    local removed = redis.call('ZREM', GROUP_PREFIX .. g, m)
    if removed == 1 then
        redis.call('DECR', GCOUNT)
    end
    return removed
end
