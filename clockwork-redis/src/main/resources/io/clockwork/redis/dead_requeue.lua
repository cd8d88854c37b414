--[[
  dead_requeue: makes a dead letter due now, its attempts reset, under a new sequence.

  KEYS[1] pending   ZSET   the message is scheduled into it, due now
  KEYS[2] inflight  ZSET   not used
  KEYS[3] dead      ZSET   its member is removed
  KEYS[4] meta      HASH   read and rewritten
  KEYS[5] reason    HASH   its field is deleted
  KEYS[6] seq       STRING incremented: the new sequence
  KEYS[7] lost      STRING not used
  KEYS[8] counters  HASH   not used
  KEYS[9] signal    LIST   pushed to wake a poller (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           id

  Reply: {requeued 0/1, clientMustSignal 0/1}: clientMustSignal is 1 when a poller should wake and SIGNAL is in
         another slot.
  Cost: O(log n).
]]
-- include: keys, clock, member, meta, schedule, wake
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
