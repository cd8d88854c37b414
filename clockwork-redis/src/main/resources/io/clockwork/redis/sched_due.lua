--[[
  sched_due: the partition's schedules a scheduler should look at now, with their definitions and states and the
  server's clock, from which the client plans each one's fire times (FirePlan) for sched_fire.lua.

  KEYS[1] sched_def   HASH   read
  KEYS[2] sched_state HASH   read
  KEYS[3] sched_due   ZSET   the due prefix is read

  ARGV[1]           the most schedules to return

  Reply: {now ms, ms until the first schedule not returned is due (-1: none; 0: more are due now), then per
         schedule: name, def, state}.
  Cost: O(log s + limit), s the partition's schedules.
]]
local SCHED_DEF = KEYS[1]
local SCHED_STATE = KEYS[2]
local SCHED_DUE = KEYS[3]
-- include: clock
local now = now_ms()
local limit = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', SCHED_DUE, '-inf', now, 'LIMIT', 0, limit + 1)
local reply = {now, -1}
local n = #due
if n > limit then
    n = limit
    reply[2] = 0
else
    local later = redis.call('ZRANGEBYSCORE', SCHED_DUE, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    if later[2] then
        reply[2] = tonumber(later[2]) - now
    end
end
for i = 1, n do
    local name = due[i]
    reply[#reply + 1] = name
    reply[#reply + 1] = redis.call('HGET', SCHED_DEF, name)
    reply[#reply + 1] = redis.call('HGET', SCHED_STATE, name)
end
return reply
