--[[
  nack: if this delivery still holds the message (its member <receipt><id> is in INFLIGHT), schedules it again after
  the retry delay or, after its last allowed attempt, buries it. With an error, it is recorded as the message's last
  error (see meta.lua), the reason of its death if it dies of its attempts, now or later; without one, an error
  recorded earlier stays. A message whose state was evicted is counted lost and not held.

  KEYS[1] pending   ZSET   the message is scheduled into it, due after the retry delay
  KEYS[2] inflight  ZSET   the delivery's member is removed
  KEYS[3] dead      ZSET   or the message is buried into it, after its last attempt
  KEYS[4] meta      HASH   read and rewritten (with the last error, if given)
  KEYS[5] reason    HASH   written if buried: the last error, or the attempts count
  KEYS[6] seq       STRING incremented: the new sequence
  KEYS[7] lost      STRING incremented if the message's state was evicted
  KEYS[8] counters  HASH   retried or dead incremented by 1
  KEYS[9] signal    LIST   pushed to wake a poller (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": maxAttempts
  ARGV[2]           id
  ARGV[3]           receipt: the delivery's sequence, in decimal
  ARGV[4]           retry delay ms (0: due at once)
  ARGV[5]           optional: the error to record as the last one (at most 1,024 chars, bounded by the client)

  Reply: {held 0/1, clientMustSignal 0/1}: clientMustSignal is 1 when a poller should wake and SIGNAL is in another
         slot.
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
-- include: clock, meta, attempts, schedule, wake, held, counters, bury
local id = ARGV[2]
local attempts, tail, freed = release_hold(id, tonumber(ARGV[3]))
if not attempts then
    return {0, 0}
end
attempts = attempts + 1 -- the delivery nacked
local err = ARGV[5]
if err then
    local _, plain = split_error(tail)
    tail = with_error(err, plain)
end
local now, ceil = now_floor_ceil()
if attempts >= MAX_ATTEMPTS then
    bury(id, attempts, nil, now, tail, max_attempts_reason())
    count_events('dead', 1)
    return {1, freed and wake() or 0}
end
count_events('retried', 1)
if schedule(id, attempts, due_at(tonumber(ARGV[4]), now, ceil), now, tail) or freed then
    return {1, wake()}
end
return {1, 0}
