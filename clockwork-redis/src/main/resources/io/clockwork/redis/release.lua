--[[
  release: hands a delivered message back at once, if this delivery still holds it (its member <receipt><id> is in
  INFLIGHT): it is scheduled due now under a new sequence, its attempts unchanged (the delivery does not count), and
  a poller is woken. A consumer's delivery that was never worked on, e.g. a prefetched one at shutdown. A message
  whose state was evicted is counted lost and not held.

  KEYS[1] pending   ZSET   the message is scheduled into it, due now
  KEYS[2] inflight  ZSET   the delivery's member is removed
  KEYS[3] meta      HASH   read and rewritten
  KEYS[4] seq       STRING incremented: the new sequence
  KEYS[5] lost      STRING incremented if the message's state was evicted
  KEYS[6] signal    LIST   pushed to wake a poller (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           id
  ARGV[3]           receipt: the delivery's sequence, in decimal

  Reply: {held 0/1, clientMustSignal 0/1}: clientMustSignal is 1 when a poller should wake and SIGNAL is in another
         slot.
  Cost: O(log n).
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local META = KEYS[3]
local SEQ = KEYS[4]
local LOST = KEYS[5]
local SIGNAL = KEYS[6]
-- include: clock, schedule, wake, held
local id = ARGV[2]
local attempts, tail, freed = release_hold(id, tonumber(ARGV[3]))
if not attempts then
    return {0, 0}
end
local now = now_ms()
if schedule(id, attempts, now, now, tail) or freed then
    return {1, wake()}
end
return {1, 0}
