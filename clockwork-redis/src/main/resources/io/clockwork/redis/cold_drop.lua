--[[
  cold_drop: deletes part of the partition's cold store (cold.lua) before the queue's own keys are deleted: first
  its chunk lists, then its index shards, then the named groups' ready sets and rate logs (groups.lua: every group in
  RING, GWAIT or GFLIGHT), at most `limit` keys or groups per call so that no call blocks Redis for long. The
  client calls it until it replies 0, then deletes the fixed keys (KeyLayout.allKeys), the store's state among them.

  KEYS[1] pending   ZSET   names the cold store's keys (cold_keys.lua) and the groups' (group_keys.lua)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>" (not used)
  ARGV[2]           limit: at most this many keys deleted

  Reply: {more, deleted}: more is 0 when nothing of the store but its state is left, deleted how many keys this
         call deleted.
  Cost: O(limit), plus the deleted keys' sizes.
]]
local PENDING = KEYS[1]
-- include: cold_keys, group_keys
local limit = tonumber(ARGV[2])
local deleted = 0
local chunks = redis.call('ZRANGE', CHUNKS, 0, limit - 1)
for _, name in ipairs(chunks) do
    deleted = deleted + redis.call('DEL', COLD_BASE .. 'c:' .. name) -- the chunk's key (cold_keys.lua)
end
if #chunks > 0 then
    redis.call('ZREM', CHUNKS, unpack(chunks))
    return {1, deleted}
end
for _, key in ipairs({RING, GWAIT}) do
    local groups = redis.call('ZRANGE', key, 0, limit - 1)
    for _, g in ipairs(groups) do
        deleted = deleted + redis.call('DEL', GROUP_PREFIX .. g, GROUP_LOG .. g)
    end
    if #groups > 0 then
        redis.call('ZREM', key, unpack(groups))
        return {1, deleted}
    end
end
local flight = redis.call('HSCAN', GFLIGHT, '0', 'COUNT', limit)[2]
if #flight > 0 then
    for i = 1, #flight, 2 do
        deleted = deleted + redis.call('DEL', GROUP_PREFIX .. flight[i], GROUP_LOG .. flight[i])
        redis.call('HDEL', GFLIGHT, flight[i])
    end
    return {1, deleted}
end
local state = redis.call('HMGET', COLD, 'L', 's', 'd')
local shards = 2 ^ tonumber(state[1] or '0') + tonumber(state[2] or '0')
local from = tonumber(state[3] or '0')
local to = math.min(shards, from + limit)
for b = from, to - 1 do
    deleted = deleted + redis.call('DEL', COLD_BASE .. 'x:' .. string.format('%d', b)) -- an index shard's key
end
if to > from then
    redis.call('HSET', COLD, 'd', to)
end
return {to > from and 1 or 0, deleted}
