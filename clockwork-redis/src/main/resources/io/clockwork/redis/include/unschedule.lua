--[[
  unschedule: takes a scheduled message's member out of PENDING or, in a partition ordered by priority, READY
  (ready.lua).
]]
-- include: ready_keys

-- Removes member m from PENDING or else from READY: 1 if it was scheduled there, 0 if neither held it.
local function unschedule(m)
    local removed = redis.call('ZREM', PENDING, m)
    if removed == 0 then
        removed = redis.call('ZREM', READY, m)
    end
    return removed
end
