--[[
  rate: the queue's rate limit, at most <permits> deliveries in any window (t - interval, t] of the server's clock (a
  sliding log, see io.clockwork.queue.RateLimit), kept in a log passed to each function: the queue's is RATE, in
  partition 0's slot, so one log serves every partition and every client (its limit: rate_limit.lua); a named group's
  is its own, in its partition (groups.lua). A log is a sorted set of grants, one member per millisecond that granted
  permits, "<ms>:<cumulative permits granted up to and including it>", scored by the millisecond. The permits used in
  the window are the newest member's cumulative count less that of the newest member at or before the window's start
  (the base: kept, every older member trimmed), so the log holds at most one member per millisecond of the interval
  however many permits it grants, and a check reads two members, not the window.
]]
-- A log member's millisecond and cumulative count.
local function rate_entry(m)
    local t, cum = string.match(m, '^(%d+):(%d+)$')
    return tonumber(t), tonumber(cum)
end

-- Trims the log to the window ending at now and returns the permits free now, the ms until the next permit frees
-- (0 when some are free), and the newest member (nil if none), which rate_grant extends.
local function rate_free(log, now, permits, interval)
    local base_cum = 0
    local start = string.format('%d', now - interval)
    local base = redis.call('ZREVRANGEBYSCORE', log, start, '-inf', 'LIMIT', '0', '1')
    if base[1] then
        local t
        t, base_cum = rate_entry(base[1])
        redis.call('ZREMRANGEBYSCORE', log, '-inf', '(' .. string.format('%d', t))
    end
    local last = redis.call('ZREVRANGEBYSCORE', log, '+inf', '-inf', 'LIMIT', '0', '1')[1]
    local used = 0
    if last then
        local _, cum = rate_entry(last)
        used = cum - base_cum
    end
    if used < permits then
        return permits - used, 0, last
    end
    -- The oldest grant in the window frees its permits interval after it was made.
    local oldest = redis.call('ZRANGEBYSCORE', log, '(' .. start, '+inf', 'LIMIT', '0', '1')[1]
    local t = rate_entry(oldest)
    return 0, math.max(1, t + interval - now), last
end

-- Records k > 0 permits granted at now (at the newest member's millisecond if the clock went back), given the newest
-- member last; returns the millisecond they count at.
local function rate_grant(log, now, k, last)
    local t, cum = now, 0
    if last then
        local last_t, last_cum = rate_entry(last)
        cum = last_cum
        if last_t >= now then
            t = last_t
            redis.call('ZREM', log, last)
        end
    end
    local ts = string.format('%d', t)
    redis.call('ZADD', log, ts, ts .. ':' .. string.format('%d', cum + k))
    return t
end

-- Gives back u of the permits granted at millisecond t: every member from t on counts u fewer.
local function rate_give_back(log, t, u)
    local later = redis.call('ZRANGEBYSCORE', log, t, '+inf')
    for i = 1, #later do
        local mt, cum = rate_entry(later[i])
        local ts = string.format('%d', mt)
        redis.call('ZREM', log, later[i])
        redis.call('ZADD', log, ts, ts .. ':' .. string.format('%d', math.max(0, cum - u)))
    end
end
