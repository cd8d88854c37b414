--[[
  group_take: the take of a grouped partition (groups.lua): round robin between the groups in RING, their in-flight
  limits and their rate limits, and the poll's view of the groups waiting for a permit.
]]
-- include: groups, group_keys, group_tail, member, rate, ready, keep

-- Sends named group g to GWAIT until its next permit frees at `at` (ms), out of RING. Groups sent in one call keep
-- their order of turns there, as a fraction of a millisecond (the n-th of the call adds n/1024: exact, as a score
-- below 2^41 ms keeps 12 bits of fraction), so that they come back in that order; a group comes back less than 1 ms
-- after its permit frees, never before.
local function group_wait(g, at, order)
    local n = order.n
    order.n = n + 1
    local score = string.format('%d', at)
    if n > 0 then
        score = score .. string.sub(string.format('%.10f', math.min(n, 1023) / 1024), 2) -- ".<fraction>"
    end
    redis.call('ZADD', GWAIT, score, g)
    redis.call('ZREM', RING, g)
end

-- Whether named group g has a permit of its rate limit free now, given its permits granted so far in this call
-- (state[g]: {free, granted, last}); a group without one leaves RING and waits in GWAIT until the next frees.
local function group_permit(g, now, state, order)
    local conf = group_settings()
    if not conf.permits then
        return true
    end
    local st = state[g]
    if not st then
        local free, wait, last = rate_free(GROUP_LOG .. g, now, conf.permits, conf.interval)
        if free == 0 then
            group_wait(g, now + wait, order)
            return false
        end
        st = {free, 0, last}
        state[g] = st
    end
    return st[1] > 0
end

-- Records the permits named group g was granted in this call, and sends it to GWAIT if it has none left.
local function group_grant(g, now, st, order)
    local conf = group_settings()
    local log = GROUP_LOG .. g
    rate_grant(log, now, st[2], st[3])
    redis.call('PEXPIRE', log, conf.interval + 1000)
    if st[1] == 0 then
        local _, wait = rate_free(log, now, conf.permits, conf.interval)
        group_wait(g, now + wait, order)
    end
end

-- Takes up to n ready messages of a grouped partition: by priority, then round robin between groups, then in due
-- order within a group, after filing what fell due (move_due) and bringing back the groups whose permit freed.
-- Returns the members taken, their META values (nil where gone), whether more may be ready, and each one's group
-- ('' for none). Counts the named groups' deliveries in GFLIGHT. grouped: GROUPED's value, as the caller read it.
local function take_groups(n, now, now_s, grouped)
    local conf = group_settings(grouped)
    local permits, waits, order -- with a group rate limit: per group its permits (group_permit), groups sent to wait
    if conf.permits then
        permits, waits, order = {}, {}, {n = 0}
        local back = redis.call('ZRANGEBYSCORE', GWAIT, '-inf', now_s)
        if #back > 0 then
            redis.call('ZREMRANGEBYSCORE', GWAIT, '-inf', now_s)
            for i = 1, #back do
                group_sync(back[i])
            end
        end
    end
    local count, read, moved = move_due(now_s)
    if #moved > 0 then
        local by_group = {}
        for i = 1, #moved do
            local m = moved[i][1]
            local g = meta_group(read[m]) or ''
            local t = by_group[g]
            if not t then
                t = {}
                by_group[g] = t
            end
            t[#t + 1] = string.format('%d', moved[i][2])
            t[#t + 1] = m
        end
        group_add(by_group)
    end
    local heads, groups = {}, {}
    local flight = conf.max and {} -- with maxInFlightPerGroup: per group its deliveries in flight
    local named = 0
    -- RING is read a batch of entries at a time and written once per batch: `batch` holds its first entries as one
    -- read gave them ({group, score, ...}) and `at` the next one's index; `writes` the entries held back until RING is
    -- read again ({score, group, ...}), and `write_level` the least level of those written since the read. A batch's
    -- next entry is still RING's first while none of them goes to a lower level: a group whose turn ends goes behind
    -- every group at its level. g is the group whose turn it is, s its score as this call left it (written when its turn ends, when
    -- it leaves RING, or at the end).
    local batch, at = {}, 1
    local writes, write_level = {}, math.huge
    local g, s
    local function flush()
        if #writes > 0 then
            redis.call('ZADD', RING, unpack(writes))
            writes = {}
        end
    end
    -- Holds back g's entry at the back of a level's line (its turn ends, or its first message is at that level).
    local function rejoin(level)
        if turn_next > turn_last then -- no ticket reserved: write what waits first, as renumbering rewrites RING
            flush()
            if reserve_turns(n - #heads + 1) then
                at = #batch + 1 -- the batch's scores are stale
            end
        end
        writes[#writes + 1] = next_turn(level)
        writes[#writes + 1] = g
        write_level = math.min(write_level, level)
        g = nil
    end
    -- Every turn that takes nothing sets an entry right for good (a group found empty leaves RING, one at another
    -- level moves there, one without a permit waits), so the loop ends; the guard bounds one call's work when a
    -- level just drained and many groups' entries are left to clear (the next call clears the rest).
    local guard = n + 10000
    while #heads < n and guard > 0 do
        guard = guard - 1
        if not g then
            if at > #batch or level_of(tonumber(batch[at + 1])) > write_level then
                flush()
                batch, at = redis.call('ZRANGE', RING, '0', string.format('%d', n - #heads - 1), 'WITHSCORES'), 1
                write_level = math.huge
                if not batch[1] then
                    break
                end
            end
            g, s = batch[at], tonumber(batch[at + 1])
            at = at + 2
        end
        local set = group_set(g)
        local level = level_of(s)
        if g ~= '' and permits and not group_permit(g, now, permits, order) then
            g = nil -- sent to GWAIT, out of RING
        else
            -- The group's first message; a set found empty, or whose first message is at another level (a removal
            -- left RING as it was), sets the group's entry right instead.
            local h = redis.call('ZPOPMIN', set)
            if not h[1] or h[1] == KEEP_MEMBER then
                if h[1] then
                    redis.call('ZADD', set, h[2], h[1])
                end
                redis.call('ZREM', RING, g)
                g = nil
            elseif level_of(tonumber(h[2])) ~= level then
                redis.call('ZADD', set, h[2], h[1])
                rejoin(level_of(tonumber(h[2])))
            else
                heads[#heads + 1] = h[1]
                groups[#heads] = g
                local out = false
                local weight = 1
                if g ~= '' then
                    named = named + 1
                    if flight then
                        flight[g] = (flight[g] or tonumber(redis.call('HGET', GFLIGHT, g)) or 0) + 1
                        out = flight[g] >= conf.max
                    end
                    local st = permits and permits[g]
                    if st then
                        st[1], st[2] = st[1] - 1, st[2] + 1
                        if st[1] == 0 then
                            out = true
                            waits[#waits + 1] = g -- in the order of their turns
                        end
                    end
                    if conf.weighted then
                        weight = tonumber(redis.call('HGET', GCONF, 'w:' .. g)) or 1
                    end
                end
                if out then
                    redis.call('ZREM', RING, g)
                    g = nil
                elseif s % TURN + 1 >= weight then
                    rejoin(level) -- its turn ends: to the back of its level's line
                else
                    s = s + 1 -- it keeps its turn
                end
            end
        end
    end
    if g then
        writes[#writes + 1] = string.format('%d', s)
        writes[#writes + 1] = g
    end
    local in_ring = #writes > 0 or at <= #batch -- RING is not empty
    flush()
    if permits then
        for g, st in pairs(permits) do
            if st[2] > 0 and st[1] > 0 then
                group_grant(g, now, st, order)
            end
        end
        for i = 1, #waits do
            group_grant(waits[i], now, permits[waits[i]], order)
        end
    end
    local metas = {}
    if #moved == 0 and #heads > 0 then -- none read yet (the usual: offered due at once): one HMGET of them all
        local ids = {}
        for i = 1, #heads do
            ids[i] = id_of(heads[i])
        end
        metas = redis.call('HMGET', META, unpack(ids))
    elseif #heads > 0 then
        local missing, where = {}, {}
        for i = 1, #heads do
            metas[i] = read[heads[i]]
            if not metas[i] then
                missing[#missing + 1] = id_of(heads[i])
                where[#missing] = i
            end
        end
        if #missing > 0 then
            local found = redis.call('HMGET', META, unpack(missing))
            for j = 1, #missing do
                metas[where[j]] = found[j]
            end
        end
    end
    if named > 0 then
        local counts = {}
        for i = 1, #heads do
            local g = groups[i]
            if g ~= '' and metas[i] then
                counts[g] = (counts[g] or 0) + 1
            end
        end
        for g, c in pairs(counts) do
            redis.call('HINCRBY', GFLIGHT, g, c == 1 and '1' or c)
        end
        redis.call('DECRBY', GCOUNT, named == 1 and '1' or named)
    end
    return heads, metas, count == tonumber(MOVE_LIMIT) or #heads == n and (in_ring or redis.call('EXISTS', RING) == 1),
        groups
end

-- Whether a group waiting for a permit has ready messages (a poll the group rate limit held back), looking at the
-- first 16 waiting groups.
local function groups_held()
    local waiting = redis.call('ZRANGE', GWAIT, '0', '15')
    for i = 1, #waiting do
        if redis.call('EXISTS', GROUP_PREFIX .. waiting[i]) == 1 then
            return true
        end
    end
    return false
end

-- The ms until the first waiting group's permit frees, or nil.
local function groups_wait(now)
    local w = redis.call('ZRANGE', GWAIT, '0', '0', 'WITHSCORES')
    return w[2] and math.max(0, math.ceil(tonumber(w[2]) - now)) or nil
end
