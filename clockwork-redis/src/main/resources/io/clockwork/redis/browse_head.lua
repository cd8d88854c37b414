--[[
  browse_head: the partition's oldest ready message and its scheduling counter, for operators' tools sampling a
  queue. Read-only.

  KEYS[1] pending   ZSET   read: its first member, the oldest due
  KEYS[2] seq       STRING read: one number per scheduling (offer, retry, reschedule, requeue) in the partition

  Reply: {nowMs, oldestDueMs, scheduled}: oldestDueMs is the due time of the oldest ready message (server ms), -1
         if none is ready; scheduled is the partition's sequence counter (0 before its first offer).
  Cost: O(log n).
]]
local PENDING = KEYS[1]
local SEQ = KEYS[2]
-- include: clock
local now = now_ms()
local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
local oldest = -1
local score = head[2] and tonumber(head[2])
if score and score <= now then
    oldest = score
end
return {now, oldest, tonumber(redis.call('GET', SEQ) or '0')}
