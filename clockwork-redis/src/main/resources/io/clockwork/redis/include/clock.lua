--[[
  clock: the server's clock, the only clock due times come from.
]]

-- Replicate effects, not the script, so that writes may follow TIME: the default since Redis 5, a no-op since 7.
-- per call {
if redis.replicate_commands then
    redis.replicate_commands()
end
-- per call }

-- The server's clock, in whole milliseconds.
local function now_ms()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The server's clock floored and rounded up to whole milliseconds: {floor, ceil}. A due time counts a delay from
-- the ceiling, so that a message is never due (by the floored clock pollers read) before offer time + delay.
local function now_floor_ceil()
    local t = redis.call('TIME')
    local us = tonumber(t[2])
    local floor = tonumber(t[1]) * 1000 + math.floor(us / 1000)
    if us % 1000 > 0 then
        return floor, floor + 1
    end
    return floor, floor
end

-- When a message delayed by delay_ms (0: due at once) falls due, given the clock's floor and ceiling.
local function due_at(delay_ms, floor, ceil)
    if delay_ms <= 0 then
        return floor
    end
    return ceil + delay_ms
end
