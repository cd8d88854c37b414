--[[
  browse: one page of a partition's messages in one state, by rank, for operators' tools. Read-only: it sweeps
  nothing, so a delivery whose visibility timeout ran out shows as in flight until a consumer's script returns it.
  ZRANGE by rank costs O(log n + count): a page deep in a large backlog costs no more than the first.

  KEYS[1] pending   ZSET   read: ready (due by now) and delayed messages
  KEYS[2] inflight  ZSET   read
  KEYS[3] dead      ZSET   read
  KEYS[4] meta      HASH   read: each listed message's state
  KEYS[5] reason    HASH   read: each listed dead letter's reason
  KEYS[6] seq       STRING not used
  KEYS[7] lost      STRING not used
  KEYS[8] counters  HASH   not used
  KEYS[9] signal    LIST   not used (absent in a cluster's other partitions)

  ARGV[1]           the state: ready, delayed, inflight or dead
  ARGV[2]           offset: how many messages of the state to skip, in score order
  ARGV[3]           count: at most this many to list

  Reply: {total, nowMs, id1, scoreMs1, meta1, reason1, id2, ...}: total is how many messages the partition has in
         the state; four elements per listed message, in score order: its id, its score (due time, visibility
         deadline or time of death, server ms), its META value (see meta.lua; false if evicted or not this
         scheduling's) and, for a dead letter, its reason (else '').
  Cost: O(log n + count).
]]
-- include: keys, clock, member
local now = now_ms()
local state = ARGV[1]
local offset = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
local key = PENDING
local first = 0
local total
if state == 'ready' then
    total = redis.call('ZCOUNT', PENDING, '-inf', now)
elseif state == 'delayed' then
    first = redis.call('ZCOUNT', PENDING, '-inf', now)
    total = redis.call('ZCOUNT', PENDING, string.format('(%d', now), '(+inf')
elseif state == 'inflight' then
    key = INFLIGHT
    total = redis.call('ZCOUNT', INFLIGHT, '-inf', '(+inf')
elseif state == 'dead' then
    key = DEAD
    total = redis.call('ZCARD', DEAD)
else
    return redis.error_reply('unknown state ' .. state)
end
local result = {total, now}
local last = math.min(offset + count, total) - 1
if last < offset then
    return result
end
local members = redis.call('ZRANGE', key, first + offset, first + last, 'WITHSCORES')
for i = 1, #members, 2 do
    local m = members[i]
    local id = id_of(m)
    local v = redis.call('HGET', META, id)
    local seq = v and string.match(v, '^%a %d+ (%x+)')
    if v and not (seq and owns(m, tonumber(seq, 16))) then
        v = false
    end
    result[#result + 1] = id
    result[#result + 1] = tonumber(members[i + 1])
    result[#result + 1] = v or false
    result[#result + 1] = key == DEAD and (redis.call('HGET', REASON, id) or '') or ''
end
return result
