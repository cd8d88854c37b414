--[[
  groups: fair groups. A message may name a group, its header clockwork-group (group_tail.lua). A partition whose
  GROUPED key exists (group.lua sets it before the first offer of a message with a group; nothing removes it) keeps
  its due messages in one ready set per group: a named group's is GROUP_PREFIX .. <group>, the messages without a
  group form the unnamed group, whose set is READY (ready.lua), all scored as READY is, (1000 - priority) * 2^42 +
  due. RING holds the groups whose turn may come, the unnamed one as '' (a group is never empty), scored
  level * 2^42 + ticket * TURN + used: level is 1000 - the priority of the group's first ready message, ticket the
  group's place in its level's line (deficit round robin), used its deliveries in its current turn (fewer than its
  weight). A take takes the first group's first message; the group keeps its turn (used + 1) until it used its
  weight, then goes to the back of its level's line (the last ticket there + 1) with a full turn, as does a group
  that joins the ring, so it neither starves the others nor is starved. Messages that fall due (move_due, or an
  offer due at once) join their group's set; a group whose first message's priority rises moves to that level.
  A named group leaves the ring while it has no ready message, while it has maxInFlightPerGroup deliveries in flight
  (GFLIGHT, incremented by a take, decremented when the delivery ends: group_release) and while it waits for a permit
  of its rate limit (GWAIT, until the permit frees; its log is GROUP_LOG .. <group>, rate.lua's structure); it joins
  again when that ends (group_sync). Removals from a group's set (cancel, reschedule, replace) leave RING as it is: a
  take that meets a group whose set is empty or whose first message is at another level sets it right. A take of a
  named group's message scores its delivery's visibility deadline with a half millisecond (HALF), so that an ack knows
  without a read whether the delivery holds a group's slot. GCONF holds the settings: max (maxInFlightPerGroup), rate
  ("<permits> <interval ms>"), weighted (set when some group's weight is not 1) and w:<group> (its weight).
]]
-- include: group_keys, ready_keys

-- per call {
local group_conf = false
local last_tickets = {} -- by level: the last ticket this call read or gave there (next_turn)
-- per call }
local TURN = 1024 -- a turn's span in a RING score: a weight is at most 1000
local TICKET_CAP = 4294967295 -- 2^32 - 1 turns fit in a level's span (PRIORITY_SPAN / TURN)
local HALF = '.5' -- appended to a named group's delivery's visibility deadline in INFLIGHT

-- The group settings (GCONF), read once per call.
local function group_settings()
    if not group_conf then
        local c = redis.call('HMGET', GCONF, 'max', 'rate', 'weighted')
        group_conf = {max = tonumber(c[1]), weighted = c[3]}
        if c[2] then
            local permits, interval = string.match(c[2], '^(%d+) (%d+)$')
            group_conf.permits, group_conf.interval = tonumber(permits), tonumber(interval)
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

-- The score of the next turn at a level: behind every group there (ticket one past the last one's), or the level's
-- first ticket if it has none; the tickets are renumbered from 0 when they near the score's span.
local function next_turn(level)
    local base = level * PRIORITY_SPAN
    local from, to = '(' .. string.format('%d', base + PRIORITY_SPAN), string.format('%d', base)
    local ticket = last_tickets[level]
    if ticket then
        ticket = ticket + 1 -- only this call gives tickets now: the last one it read or gave is the last
    else
        local last = redis.call('ZREVRANGEBYSCORE', RING, from, to, 'WITHSCORES', 'LIMIT', '0', '1')
        ticket = last[2] and math.floor((tonumber(last[2]) - base) / TURN) + 1 or 0
    end
    if ticket >= TICKET_CAP then
        local all = redis.call('ZRANGEBYSCORE', RING, to, from, 'WITHSCORES')
        local scored = {}
        for i = 1, #all, 2 do
            local s = tonumber(all[i + 1]) - base
            scored[i] = string.format('%d', base + (i - 1) / 2 * TURN + s % TURN)
            scored[i + 1] = all[i]
        end
        redis.call('ZADD', RING, unpack(scored))
        ticket = #all / 2
    end
    last_tickets[level] = ticket
    return string.format('%d', base + ticket * TURN)
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

-- Files ready messages in their groups' sets: by_group maps a group to {score, member, score, member, ...}, the
-- scores as strings. Brings each group's RING entry in line where a message may have changed it.
local function group_add(by_group)
    local named = 0
    for g, scored in pairs(by_group) do
        redis.call('ZADD', group_set(g), unpack(scored))
        local best = level_of(tonumber(scored[1]))
        for i = 3, #scored, 2 do
            best = math.min(best, level_of(tonumber(scored[i])))
        end
        if g ~= '' then
            named = named + #scored / 2
        end
        local s = redis.call('ZSCORE', RING, g)
        if not s or level_of(tonumber(s)) > best then
            group_sync(g)
        end
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
