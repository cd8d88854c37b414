--[[
  face_clear: removes every element of a scope (clear, and delete of a delayed queue or of its destination).

  KEYS[1] pending   ZSET   the scope's members read and removed
  KEYS[2] meta      HASH   the removed elements' values deleted
  KEYS[3] lost      STRING incremented per element found with its META value evicted
  KEYS[4] order     ZSET   the removed elements' entries removed
  KEYS[5] values    ZSET   the removed elements' entries removed

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           scope: 'delayed' or 'due'

  Reply: {removed}.
  Cost: O(n log n) for the scope's n elements.
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local LOST = KEYS[3]
local ORDER = KEYS[4]
local VALUES = KEYS[5]
-- include: clock, face_copies, face_payload
local now = now_ms()
local members
if ARGV[2] == 'due' then
    members = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now)
else
    members = redis.call('ZRANGEBYSCORE', PENDING, string.format('(%d', now), '(+inf')
end
local removed = 0
for _, m in ipairs(members) do
    local p = payload_of(m)
    drop(m, p)
    if p then
        removed = removed + 1
    end
end
if ARGV[2] == 'delayed' then
    redis.call('DEL', ORDER) -- what is left is stale
end
return {removed}
