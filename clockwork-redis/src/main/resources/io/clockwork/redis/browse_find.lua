--[[
  browse_find: where a message is and its state, for operators' tools looking one up by id. Read-only.

  KEYS[1] pending   ZSET   read: the message's due time
  KEYS[2] inflight  ZSET   read: its visibility deadline
  KEYS[3] dead      ZSET   read: its time of death
  KEYS[4] meta      HASH   read: its state
  KEYS[5] reason    HASH   read: why it died

  ARGV[1]           the id

  Reply: {} if the partition has no such message, else {where, scoreMs, meta, reason, nowMs}: where is pending,
         inflight or dead, scoreMs its score there (server ms), meta its META value (see meta.lua), reason why it
         died ('' unless dead).
  A message in the cold store (cold.lua), in READY (ready.lua) or in its group's ready set (groups.lua) is pending at
  its due time.
  Cost: O(log n), or O(CHUNK_CAP) for a cold message.
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local DEAD = KEYS[3]
local META = KEYS[4]
local REASON = KEYS[5]
-- include: clock, member, cold, ready_keys, group_keys, group_tail
local id = ARGV[1]
local v = redis.call('HGET', META, id)
if not v then
    local found = cold_store().peek(id)
    if found then
        local value, due = cold.meta(found[1], found[2])
        return {'pending', due, value, '', now_ms()}
    end
    return {}
end
local seq = string.match(v, '^%a %d+ (%x+)')
if not seq then
    return {}
end
local m = member(tonumber(seq, 16), id)
local places = {{'pending', PENDING}, {'pending', READY}, {'inflight', INFLIGHT}, {'dead', DEAD}}
local g = meta_group(v)
if g then
    places[#places + 1] = {'pending', GROUP_PREFIX .. g} -- due, in its group's ready set (groups.lua)
end
for _, where in ipairs(places) do
    local score = redis.call('ZSCORE', where[2], m)
    if score then
        local reason = where[1] == 'dead' and (redis.call('HGET', REASON, id) or '') or ''
        score = tonumber(score)
        if where[1] == 'pending' and where[2] ~= PENDING then -- a ready score: the priority's span plus the due
            score = score % PRIORITY_SPAN
        end
        return {where[1], score, v, reason, now_ms()}
    end
end
return {}
