--[[
  unschedule: takes a scheduled message's member out of PENDING or, in a partition ordered by priority, READY
  (ready.lua), or in a grouped partition its group's ready set (groups.lua).
]]
-- include: ready_keys, groups, group_tail

-- Removes member m, whose message's META tail is `tail`, from PENDING or else from READY or its group's ready set: 1
-- if it was scheduled there, 0 if none held it.
local function unschedule(m, tail)
    local removed = redis.call('ZREM', PENDING, m)
    if removed == 0 then
        removed = redis.call('ZREM', READY, m)
    end
    if removed == 0 then
        local g = tail_group(tail, 1)
        if g then
            removed = group_unschedule(g, m)
        end
    end
    return removed
end
