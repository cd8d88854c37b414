--[[
  reschedule: moves a scheduled message to now + delay under a new sequence, as if offered now. An in-flight or dead
  message is not moved.

  KEYS[1] pending   ZSET   the member is moved within it (or from READY into it, ready.lua)
  KEYS[2] meta      HASH   read and rewritten
  KEYS[3] seq       STRING incremented: the new sequence
  KEYS[4] lost      STRING incremented when a lookup in the cold store meets an index entry whose chunk was evicted
  KEYS[5] signal    LIST   pushed to wake a poller (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": compactAfter
  ARGV[2]           id
  ARGV[3]           delay ms (0: due at once)

  Reply: {moved 0/1, clientMustSignal 0/1}: clientMustSignal is 1 when a poller should wake and SIGNAL is in another
         slot.
  Cost: O(log n), or O(CHUNK_CAP) for a cold message (cold.lua).
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local SEQ = KEYS[3]
local LOST = KEYS[4]
local SIGNAL = KEYS[5]
-- include: clock, member, meta, schedule, wake, cold, lost, unschedule
local id = ARGV[2]
local state, attempts, seq, tail = get_meta(id)
if state == nil then
    local found = cold_store(lose).find(id)
    if not found then
        return {0, 0}
    end
    cold.remove(found, id)
    local _
    _, _, attempts, _, tail = cold.parse(found[2])
else
    -- Scheduled: live and its member in PENDING or READY (an in-flight message's member is in INFLIGHT).
    if state ~= 'D' or unschedule(member(seq, id), tail) == 0 then
        return {0, 0}
    end
end
local now, ceil = now_floor_ceil()
local due = due_at(tonumber(ARGV[3]), now, ceil)
local waking
if goes_cold(id, due, now, compact_after()) then
    local head = redis.call('ZRANGEBYSCORE', PENDING, '-inf', '(+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    local first = cold_head()
    if state then
        redis.call('HDEL', META, id)
    end
    cold_store(lose).add(id, due, redis.call('INCR', SEQ), attempts, tail)
    cold.flush()
    waking = due <= now or ((head[2] == nil or due < tonumber(head[2])) and (first == nil or due < first))
else
    waking = schedule(id, attempts, due, now, tail)
end
if waking then
    return {1, wake()}
end
return {1, 0}
