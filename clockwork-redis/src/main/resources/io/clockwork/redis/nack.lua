--[[
  nack: if this delivery still holds the message (its member <receipt><id> is in INFLIGHT), schedules it again after
  the retry delay or, after its last allowed attempt, buries it. A message whose state was evicted is counted lost
  and not held.

  KEYS[1] pending   ZSET   the message is scheduled into it, due after the retry delay
  KEYS[2] inflight  ZSET   the delivery's member is removed
  KEYS[3] dead      ZSET   or the message is buried into it, after its last attempt
  KEYS[4] meta      HASH   read and rewritten
  KEYS[5] reason    HASH   written if buried
  KEYS[6] seq       STRING incremented: the new sequence
  KEYS[7] lost      STRING incremented if the message's state was evicted
  KEYS[8] signal    LIST   pushed to wake a poller (absent in a cluster's other partitions)

  ARGV[1]           maxAttempts
  ARGV[2]           id
  ARGV[3]           receipt: the delivery's sequence, in decimal
  ARGV[4]           retry delay ms (0: due at once)

  Reply: {held 0/1, clientMustSignal 0/1}: clientMustSignal is 1 when a poller should wake and SIGNAL is in another
         slot.
  Cost: O(log n).
]]
-- include: keys, clock, member, meta, lost, attempts, schedule, wake
local id = ARGV[2]
local receipt = tonumber(ARGV[3])
if redis.call('ZREM', INFLIGHT, member(receipt, id)) == 0 then
    return {0, 0}
end
local _, attempts, seq, tail = get_meta(id)
if seq ~= receipt then
    lose()
    return {0, 0}
end
attempts = attempts + 1 -- the delivery nacked
local now, ceil = now_floor_ceil()
if attempts >= MAX_ATTEMPTS then
    bury(id, attempts, max_attempts_reason(), now, tail)
    return {1, 0}
end
if schedule(id, attempts, due_at(tonumber(ARGV[4]), now, ceil), now, tail) then
    return {1, wake()}
end
return {1, 0}
