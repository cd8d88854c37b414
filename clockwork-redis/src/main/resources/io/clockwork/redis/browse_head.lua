--[[
  browse_head: the partition's oldest ready message and its scheduling counter, for operators' tools sampling a
  queue. Read-only.

  KEYS[1] pending   ZSET   read: its first member, the oldest due (and READY's head per priority, ready.lua: at most
                           64 priorities, the highest; and the first message of each of at most 192 named groups,
                           group_names.lua)
  KEYS[2] seq       STRING read: one number per scheduling (offer, retry, reschedule, requeue) in the partition

  Reply: {nowMs, oldestDueMs, scheduled}: oldestDueMs is the due time of the oldest ready message (server ms), -1
         if none is ready; scheduled is the partition's sequence counter (0 before its first offer).
  Cost: O(log n).
]]
local PENDING = KEYS[1]
local SEQ = KEYS[2]
-- include: clock, ready_keys, group_keys, group_names
local now = now_ms()
local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
local oldest = -1
local score = head[2] and tonumber(head[2])
if score and score <= now then
    oldest = score
end
-- READY's oldest per priority is the head of that priority's span of scores.
local from = '-inf'
for _ = 1, 64 do
    local r = redis.call('ZRANGEBYSCORE', READY, from, '(+inf', 'WITHSCORES', 'LIMIT', '0', '1')
    if not r[2] then
        break
    end
    local level = math.floor(tonumber(r[2]) / PRIORITY_SPAN)
    local due = tonumber(r[2]) - level * PRIORITY_SPAN
    if oldest < 0 or due < oldest then
        oldest = due
    end
    from = string.format('%.0f', (level + 1) * PRIORITY_SPAN)
end
-- A grouped partition's named groups (groups.lua): the first message of each of the first 64 groups of each of
-- group_names.lua's sources.
for _, g in ipairs(group_names(64)) do
    local r = redis.call('ZRANGE', GROUP_PREFIX .. g, '0', '0', 'WITHSCORES')
    local due = r[2] and tonumber(r[2]) % PRIORITY_SPAN
    if due and (oldest < 0 or due < oldest) then
        oldest = due
    end
end
return {now, oldest, tonumber(redis.call('GET', SEQ) or '0')}
