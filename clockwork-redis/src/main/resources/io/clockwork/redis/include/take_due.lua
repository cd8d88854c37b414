--[[
  take_due: what poll.lua does after its header (see there): sweeps expired deliveries, then takes up to n due messages.
]]
-- include: clock, member, lost, sweep, wake, keep, counters, cold, ready, ready_keys, group_take, groups, group_keys

-- The first lease end in INFLIGHT (a number), or false if none.
local function lease_head()
    local f = redis.call('ZRANGE', INFLIGHT, '0', '0', 'WITHSCORES')
    return f[2] and f[1] ~= KEEP_MEMBER and tonumber(f[2]) or false
end

-- Milliseconds until the partition's next event (a due message, in PENDING or in the cold store, whose earliest due
-- time is cold_due, or an expiring delivery: the first lease end `lease`, false if none, nil if not known), or -1 if
-- none.
local function next_event_in(now, cold_due, lease)
    local result = -1
    local p = redis.call('ZRANGEBYSCORE', PENDING, '-inf', '(+inf', 'WITHSCORES', 'LIMIT', '0', '1')
    if p[2] then
        result = math.max(0, tonumber(p[2]) - now)
    end
    local c = cold_due
    if c then
        c = math.max(0, c - now)
        if result < 0 or c < result then
            result = c
        end
    end
    if lease == nil then
        lease = lease_head()
    end
    if lease then
        local d = math.max(0, lease - now)
        if result < 0 or d < result then
            result = d
        end
    end
    return result
end

-- Sweeps at most sweep_limit (a string, as ARGV carries it) expired deliveries, promotes the cold chunks whose
-- earliest message is due (cold.lua, at least PROMOTE_LIMIT messages when there are as many), then takes up to n due
-- messages, each visible again after visibility_ms unless settled; returns poll.lua's reply. at: nil, or the server's
-- clock in ms as the caller read it (poll_rate.lua, which records the deliveries at that time). flags: nil, or the
-- values of PAUSED, ORDERED and GROUPED as the caller read them (ack_poll.lua, whose acks read the group settings).
local function take_due(n, sweep_limit, visibility_ms, at, flags)
    local now = now_ms()
    if at then
        now = at
    end
    local now_s = string.format('%d', now) -- one conversion for both reads
    -- The first lease end, read once: the sweep runs only when it has come, and a take that finds too little knows
    -- the partition's next expiry without reading INFLIGHT again.
    local lease = lease_head()
    if lease and lease <= now then
        sweep(now, sweep_limit, now_s)
        lease = nil -- what the sweep left is read again when needed
    end
    local first = cold_head()
    if first and first <= now then
        cold_store(lose).promote(now, PROMOTE_LIMIT)
        first = cold_head()
    end
    flags = flags or redis.call('MGET', PAUSED, ORDERED, GROUPED)
    if flags[1] then
        -- Paused: nothing is taken, and the pollers wait for the wake-up of resume (pause.lua), not for a due time.
        return {0, -1, 0, lost_now}
    end
    local heads, metas, more, read, groups
    local k = 0
    if flags[3] then
        -- Fair groups (groups.lua): what fell due joins its group, and the take goes round the groups.
        heads, metas, more, groups = take_groups(n, now, now_s, flags[3])
        k = #heads
    elseif flags[2] then
        -- Priorities (ready.lua): what fell due joins READY, and the take is READY's head.
        heads, more, read = take_ready(n, now_s)
        k = #heads
        if k > 0 then
            metas = {}
            local missing, at = {}, {}
            for i = 1, k do
                metas[i] = read[heads[i]]
                if not metas[i] then
                    missing[#missing + 1] = id_of(heads[i])
                    at[#missing] = i
                end
            end
            if #missing > 0 then
                local found = redis.call('HMGET', META, unpack(missing))
                for j = 1, #missing do
                    metas[at[j]] = found[j]
                end
            end
        end
    else
        heads = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now_s, 'LIMIT', '0', n == 1 and '2' or n + 1)
        k = math.min(n, #heads)
        more = #heads > k
        if k > 0 then
            local ids = {}
            for i = 1, k do
                ids[i] = id_of(heads[i])
            end
            redis.call('ZREMRANGEBYRANK', PENDING, '0', k == 1 and '0' or k - 1)
            metas = redis.call('HMGET', META, unpack(ids))
        end
    end
    local result = {0, -1, 0, 0}
    local taken = 0
    if k > 0 then
        local visible_until = string.format('%d', now + visibility_ms) -- one conversion for all k scores
        local visible_half = groups and visible_until .. HALF
        local scored = {}
        for i = 1, k do
            local v = metas[i]
            if v then
                taken = taken + 1
                scored[2 * taken - 1] = groups and groups[i] ~= '' and visible_half or visible_until
                scored[2 * taken] = heads[i]
                result[2 * taken + 3] = heads[i]
                result[2 * taken + 4] = v
            else
                lose()
            end
        end
        if taken > 0 and lease ~= nil then
            local ends = now + visibility_ms -- the deliveries just made end no earlier
            if not lease or ends < lease then
                lease = ends
            end
        end
        if taken > 0 then
            -- The delivered count first: its new value tells whether this ZADD adds the keep member (keep.lua).
            local delivered = redis.call('HINCRBY', COUNTERS, 'delivered', taken == 1 and '1' or taken)
            if keeps(delivered - taken, delivered) then
                redis.call('ZADD', INFLIGHT, '+inf', KEEP_MEMBER, unpack(scored))
            else
                redis.call('ZADD', INFLIGHT, unpack(scored))
            end
        end
    end
    result[1] = taken
    result[4] = lost_now
    if taken < n then
        result[2] = next_event_in(now, first, lease)
        local wait = groups and groups_wait(now)
        if wait and (result[2] < 0 or wait < result[2]) then
            result[2] = wait -- the first permit of a waiting group frees
        end
        if groups and taken == 0 and groups_held() then
            count_events('limited', 1)
        end
    elseif more or (first or now + 1) <= now then
        -- More is ready: pass the wake-up on so another blocked poller takes it.
        result[3] = wake()
    end
    return result
end
