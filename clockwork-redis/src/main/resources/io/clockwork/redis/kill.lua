--[[
  kill: buries a delivered message with a reason, if this delivery still holds it (its member <receipt><id> is in
  INFLIGHT): a consumer's dead-letter call, or a payload the client could not decode. The delivery counts as an
  attempt. A message whose state was evicted is counted lost instead.

  KEYS[1] pending   ZSET   names a grouped partition's keys (group_keys.lua): a named group's delivery frees its
                           group's slot (groups.lua)
  KEYS[2] inflight  ZSET   the delivery's member is removed
  KEYS[3] dead      ZSET   the message is buried into it
  KEYS[4] meta      HASH   read and rewritten
  KEYS[5] reason    HASH   written: the reason
  KEYS[6] seq       STRING incremented: the dead letter's sequence
  KEYS[7] lost      STRING incremented if the message's state was evicted
  KEYS[8] counters  HASH   dead incremented by 1
  KEYS[9] signal    LIST   pushed when the delivery's group takes its turn again (a poller waiting for the group's
                           slot may take its next message), unless in a cluster's other partitions (absent: those
                           pollers take again at their recheck)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": dead-letter bounds
  ARGV[2]           id
  ARGV[3]           receipt: the delivery's sequence, in decimal
  ARGV[4]           reason: why it dies (a consumer's at most 1,024 chars, bounded by the client)

  Reply: 1 if buried, 0 if this delivery no longer holds the message (or its state was evicted).
  Cost: O(log n).
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local DEAD = KEYS[3]
local META = KEYS[4]
local REASON = KEYS[5]
local SEQ = KEYS[6]
local LOST = KEYS[7]
local COUNTERS = KEYS[8]
local SIGNAL = KEYS[9]
-- include: clock, held, counters, bury, wake
local id = ARGV[2]
local attempts, tail, freed = release_hold(id, tonumber(ARGV[3]))
if not attempts then
    return 0
end
bury(id, attempts + 1, ARGV[4], now_ms(), tail)
count_events('dead', 1)
if freed then
    wake() -- a poller may take the group's next message
end
return 1
