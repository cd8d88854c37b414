--[[
  reschedule: moves a scheduled message to now + delay under a new sequence, as if offered now. An in-flight or dead
  message is not moved.

  KEYS[1] pending   ZSET   the member is moved within it
  KEYS[2] inflight  ZSET   not used
  KEYS[3] dead      ZSET   not used
  KEYS[4] meta      HASH   read and rewritten
  KEYS[5] reason    HASH   not used
  KEYS[6] seq       STRING incremented: the new sequence
  KEYS[7] lost      STRING not used
  KEYS[8] counters  HASH   not used
  KEYS[9] signal    LIST   pushed to wake a poller (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count>": maxAttempts (not used)
  ARGV[2]           id
  ARGV[3]           delay ms (0: due at once)

  Reply: {moved 0/1, clientMustSignal 0/1}: clientMustSignal is 1 when a poller should wake and SIGNAL is in another
         slot.
  Cost: O(log n).
]]
-- include: keys, clock, member, meta, schedule, wake
local id = ARGV[2]
local state, attempts, seq, tail = get_meta(id)
-- Scheduled: live and its member in PENDING (an in-flight message's member is in INFLIGHT).
if state ~= 'D' or redis.call('ZREM', PENDING, member(seq, id)) == 0 then
    return {0, 0}
end
local now, ceil = now_floor_ceil()
if schedule(id, attempts, due_at(tonumber(ARGV[3]), now, ceil), now, tail) then
    return {1, wake()}
end
return {1, 0}
