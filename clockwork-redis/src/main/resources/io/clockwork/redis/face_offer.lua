--[[
  face_offer: files one element of the Redisson face. With a delay it is due at the server's clock rounded up to the
  next millisecond plus the delay (never early) and is listed in ORDER until then; with none it is due at once; with
  'first' it is due one millisecond before the destination's head (or now), so it is the next element taken.

  KEYS[1] pending   ZSET   the element's member, scored by due time
  KEYS[2] meta      HASH   the element's value "D 0 <seq>:<payload>" written
  KEYS[3] seq       STRING incremented: the element's sequence and id
  KEYS[4] order     ZSET   the element's member added when it has a delay
  KEYS[5] values    ZSET   the element's value entry added
  KEYS[6] signal    LIST   pushed when the element is due now or before the previous head

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           delay in ms, or 'first'
  ARGV[3]           the payload

  Reply: {clientMustSignal}: 1 when a poller should be woken and SIGNAL is absent (never: partition 0 has it).
  Cost: O(log n).
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local SEQ = KEYS[3]
local ORDER = KEYS[4]
local VALUES = KEYS[5]
local SIGNAL = KEYS[6]
-- include: clock, wake, face
local floor, ceil = now_floor_ceil()
local head = redis.call('ZRANGEBYSCORE', PENDING, '-inf', '(+inf', 'WITHSCORES', 'LIMIT', 0, 1)
local head_due = nil
if head[2] then
    head_due = tonumber(head[2])
end
local due
if ARGV[2] == 'first' then
    due = floor
    if head_due and head_due <= floor then
        due = head_due - 1
    end
else
    due = due_at(tonumber(ARGV[2]), floor, ceil)
end
file_element(PENDING, META, SEQ, ORDER, VALUES, ARGV[3], due, floor)
if due <= floor or head_due == nil or due < head_due then
    return {wake()}
end
return {0}
