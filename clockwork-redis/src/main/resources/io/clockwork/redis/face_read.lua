--[[
  face_read: every element of a scope, in its order: the delayed ones in offer order (readAll, iteration), the due
  ones in due order (the destination's readAll and iteration). Stale ORDER entries met are dropped.

  KEYS[1] pending   ZSET   read
  KEYS[2] meta      HASH   read
  KEYS[3] lost      STRING incremented per element found with its META value evicted
  KEYS[4] order     ZSET   read (delayed scope); stale entries removed

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           scope: 'delayed' or 'due'

  Reply: {payload...}.
  Cost: O(n log n) for the scope's n elements (and the stale entries met).
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local LOST = KEYS[3]
local ORDER = KEYS[4]
-- include: clock, face, face_payload
local now = now_ms()
local reply = {}
local members
if ARGV[2] == 'due' then
    members = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now)
else
    members = {}
    for _, e in ipairs(redis.call('ZRANGE', ORDER, 0, -1)) do
        local due = due_of(e)
        if not due or due <= now then
            redis.call('ZREM', ORDER, e)
        else
            members[#members + 1] = e
        end
    end
end
for _, m in ipairs(members) do
    local p = payload_of(m)
    if p then
        reply[#reply + 1] = p
    end
end
return reply
