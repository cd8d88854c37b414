--[[
  dead_requeue: makes a dead letter due now, its attempts reset, under a new sequence.

  KEYS[1] pending   ZSET   the message is scheduled into it, due now
  KEYS[2] dead      ZSET   its member is removed
  KEYS[3] meta      HASH   read and rewritten
  KEYS[4] reason    HASH   its field is deleted
  KEYS[5] seq       STRING incremented: the new sequence
  KEYS[6] signal    LIST   pushed to wake a poller (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           id

  Reply: {requeued 0/1, clientMustSignal 0/1}: clientMustSignal is 1 when a poller should wake and SIGNAL is in
         another slot.
  Cost: O(log n).
]]
local PENDING = KEYS[1]
local DEAD = KEYS[2]
local META = KEYS[3]
local REASON = KEYS[4]
local SEQ = KEYS[5]
local SIGNAL = KEYS[6]
-- include: clock, member, meta, schedule, wake
local id = ARGV[2]
local state, _, seq, tail = get_meta(id)
if state ~= 'X' then
    return {0, 0}
end
redis.call('ZREM', DEAD, member(seq, id))
redis.call('HDEL', REASON, id)
local now = now_ms()
if schedule(id, 0, now, now, tail) then
    return {1, wake()}
end
return {1, 0}
