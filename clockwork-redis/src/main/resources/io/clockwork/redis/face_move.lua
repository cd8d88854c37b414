--[[
  face_move: removes the tail element of a scope (the last delayed element in offer order, or the last due one) and
  files it at the head of another queue of the face, due before that queue's head, in one step
  (pollLastAndOfferFirstTo). Both queues' keys are in one script, so on a Redis Cluster the two queues must share
  a slot; on a standalone server any two queues can.

  KEYS[1] pending   ZSET   the source's members: read; the moved element's removed
  KEYS[2] meta      HASH   the source's values: read; the moved element's deleted
  KEYS[3] lost      STRING incremented per element found with its META value evicted
  KEYS[4] order     ZSET   the source's offer order: read from the tail; moved and stale entries removed
  KEYS[5] values    ZSET   the moved element's entry removed
  KEYS[6] target pending ZSET  the moved element's new member added
  KEYS[7] target meta    HASH  its new value written
  KEYS[8] target seq     STRING incremented: its new sequence and id
  KEYS[9] target signal  LIST  pushed to wake a taker of the target
  KEYS[10] target values ZSET  its new entry added

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           the source's scope: 'delayed' or 'due'

  Reply: {} if the scope was empty, else {payload}.
  Cost: O((1 + stale entries met) log n).
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local LOST = KEYS[3]
local ORDER = KEYS[4]
local VALUES = KEYS[5]
-- include: clock, face, face_copies, face_payload
local now = now_ms()
local m, p
while not p do
    if ARGV[2] == 'due' then
        m = redis.call('ZREVRANGEBYSCORE', PENDING, now, '-inf', 'LIMIT', 0, 1)[1]
        if not m then
            return {}
        end
    else
        m = redis.call('ZRANGE', ORDER, -1, -1)[1]
        if not m then
            return {}
        end
        local due = due_of(m)
        if not due or due <= now then
            redis.call('ZREM', ORDER, m)
            m = nil
        end
    end
    if m then
        p = payload_of(m)
    end
end
drop(m, p)
local head = redis.call('ZRANGE', KEYS[6], 0, 0, 'WITHSCORES')
local due = now
if head[2] and tonumber(head[2]) <= now then
    due = tonumber(head[2]) - 1
end
file_element(KEYS[6], KEYS[7], KEYS[8], nil, KEYS[10], p, due, now)
if redis.call('LPUSH', KEYS[9], '1') > 1 then
    redis.call('LTRIM', KEYS[9], 0, 0)
end
return {p}
