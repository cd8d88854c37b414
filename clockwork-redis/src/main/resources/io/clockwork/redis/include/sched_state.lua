--[[
  sched_state: a schedule's state, one SCHED_STATE value: "<version> <paused> <next> <last> <outstanding>". version
  counts every change, so that a scheduler or an administrator acts by compare-and-set on what it read; next and
  last are fire times in epoch ms ('-': none); outstanding is the id of a fixed-delay schedule's unfinished
  occurrence ('' if none).
]]

-- Returns the state as a table, or nil if the schedule is unknown.
local function read_state(name)
    local v = redis.call('HGET', SCHED_STATE, name)
    if not v then
        return nil
    end
    local version, paused, nxt, last, at = string.match(v, '^(%d+) (%d) (%S+) (%S+) ()')
    return {version = tonumber(version), paused = paused, next = nxt, last = last, outstanding = string.sub(v, at)}
end

-- Writes the state with its version one higher.
local function write_state(name, s)
    s.version = s.version + 1
    redis.call('HSET', SCHED_STATE, name,
        string.format('%d', s.version) .. ' ' .. s.paused .. ' ' .. s.next .. ' ' .. s.last .. ' ' .. s.outstanding)
end
