--[[
  kill: buries a delivered message with a reason, if this delivery still holds it (its member <receipt><id> is in
  INFLIGHT): a consumer's dead-letter call, or a payload the client could not decode. The delivery counts as an
  attempt. A message whose state was evicted is counted lost instead.

  KEYS[1] inflight  ZSET   the delivery's member is removed
  KEYS[2] dead      ZSET   the message is buried into it
  KEYS[3] meta      HASH   read and rewritten
  KEYS[4] reason    HASH   written: the reason
  KEYS[5] seq       STRING incremented: the dead letter's sequence
  KEYS[6] lost      STRING incremented if the message's state was evicted
  KEYS[7] counters  HASH   dead incremented by 1

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": dead-letter bounds
  ARGV[2]           id
  ARGV[3]           receipt: the delivery's sequence, in decimal
  ARGV[4]           reason: why it dies (a consumer's at most 1,024 chars, bounded by the client)

  Reply: 1 if buried, 0 if this delivery no longer holds the message (or its state was evicted).
  Cost: O(log n).
]]
local INFLIGHT = KEYS[1]
local DEAD = KEYS[2]
local META = KEYS[3]
local REASON = KEYS[4]
local SEQ = KEYS[5]
local LOST = KEYS[6]
local COUNTERS = KEYS[7]
-- include: clock, held, counters, bury
local id = ARGV[2]
local attempts, tail = release_hold(id, tonumber(ARGV[3]))
if not attempts then
    return 0
end
bury(id, attempts + 1, ARGV[4], now_ms(), tail)
count_events('dead', 1)
return 1
