--[[
  face_take: removes up to a limit of due elements (the destination's), head first or tail first, as a destination's
  poll or take does (at most once, as in Redisson), or reads the head without removing it (peek).

  KEYS[1] pending   ZSET   due members read and removed
  KEYS[2] meta      HASH   the removed elements' values read and deleted
  KEYS[3] lost      STRING incremented per element found with its META value evicted
  KEYS[4] order     ZSET   the removed elements' stale entries removed
  KEYS[5] values    ZSET   the removed elements' entries removed

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           limit, at least 1
  ARGV[3]           end: 'head' or 'tail'
  ARGV[4]           remove: '1' to remove the elements, '0' to peek

  Reply: {waitMs, payload...}: waitMs is 0 if due elements remain, else the ms until the next element falls due
         (from the clock rounded up, so never early), or -1 if no element is pending.
  Cost: O((1 + limit) log n).
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local LOST = KEYS[3]
local ORDER = KEYS[4]
local VALUES = KEYS[5]
-- include: clock, face_copies, face_payload
local now, ceil = now_floor_ceil()
local limit = tonumber(ARGV[2])
local members
if ARGV[3] == 'tail' then
    members = redis.call('ZREVRANGEBYSCORE', PENDING, now, '-inf', 'LIMIT', 0, limit)
else
    members = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now, 'LIMIT', 0, limit)
end
local reply = {-1}
for _, m in ipairs(members) do
    local p = payload_of(m)
    if p then
        if ARGV[4] == '1' then
            drop(m, p)
        end
        reply[#reply + 1] = p
    end
end
local head = redis.call('ZRANGEBYSCORE', PENDING, '-inf', '(+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if head[2] then
    reply[1] = math.max(0, tonumber(head[2]) - ceil)
    if tonumber(head[2]) <= now then
        reply[1] = 0
    end
end
return reply
