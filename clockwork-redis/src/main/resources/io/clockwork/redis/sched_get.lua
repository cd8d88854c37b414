--[[
  sched_get: what the partition holds for some schedules, with the server's clock, so that the client computes fire
  times on the server's timeline.

  KEYS[1] sched_def   HASH   read
  KEYS[2] sched_msg   HASH   read when ARGV[1] is '1'
  KEYS[3] sched_state HASH   read

  ARGV[1]           with tail: '1' to return each schedule's tail, '0' not to
  ARGV[2..]         schedule names

  Reply: {now ms, then per name: def, state, tail}: nil for an unknown schedule's fields, and for the tail unless
         asked.
  Cost: O(number of names).
]]
local SCHED_DEF = KEYS[1]
local SCHED_MSG = KEYS[2]
local SCHED_STATE = KEYS[3]
-- include: clock
local reply = {now_ms()}
local with_tail = ARGV[1] == '1'
for i = 2, #ARGV do
    local name = ARGV[i]
    local n = #reply
    reply[n + 1] = redis.call('HGET', SCHED_DEF, name)
    reply[n + 2] = redis.call('HGET', SCHED_STATE, name)
    if with_tail then
        reply[n + 3] = redis.call('HGET', SCHED_MSG, name)
    else
        reply[n + 3] = false
    end
end
return reply
