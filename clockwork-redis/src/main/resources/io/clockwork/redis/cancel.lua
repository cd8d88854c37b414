--[[
  cancel: removes a live message, scheduled (its member in PENDING or READY, ready.lua, or in the cold store:
  cold.lua) or in flight (its member in INFLIGHT).

  KEYS[1] pending   ZSET   the member is removed from it, if scheduled
  KEYS[2] inflight  ZSET   or else from it, if in flight (the delivery holding it is recorded in REVOKED:
                           revoked.lua)
  KEYS[3] meta      HASH   read, and the message's field deleted
  KEYS[4] lost      STRING incremented when a lookup in the cold store meets an index entry whose chunk was evicted
  KEYS[5] signal    LIST   pushed when an in-flight message's group takes its turn again (a poller waiting for the
                           group's slot may take its next message), unless in a cluster's other partitions (absent:
                           those pollers take again at their recheck)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           id

  Reply: 1 if removed, 0 if there is no live message with that id.
  Cost: O(log n), or O(CHUNK_CAP) for a cold message; an in-flight message adds TIME, a ZADD and a trim of REVOKED.
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local META = KEYS[3]
local LOST = KEYS[4]
local SIGNAL = KEYS[5]
-- include: clock, member, meta, cold, revoked, lost, unschedule, group_tail, groups, wake
local id = ARGV[2]
local state, _, seq, tail = get_meta(id)
if state == nil then
    local found = cold_store(lose).find(id)
    if found then
        cold.remove(found, id)
        return 1
    end
    return 0
end
if state == 'X' then
    return 0
end
local m = member(seq, id)
if unschedule(m, tail) == 0 and redis.call('ZREM', INFLIGHT, m) == 1 then
    revoke({m}, now_ms())
    local g = tail_group(tail, 1)
    if g and group_release(g) then
        wake() -- its group's slot frees: a poller may take the group's next message
    end
end
redis.call('HDEL', META, id)
return 1
