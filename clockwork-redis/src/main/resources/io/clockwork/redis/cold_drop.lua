--[[
  cold_drop: deletes part of the partition's cold store (cold.lua) before the queue's own keys are deleted: first
  its chunk lists, then its index shards, at most `limit` keys per call so that no call blocks Redis for long. The
  client calls it until it replies 0, then deletes the fixed keys (KeyLayout.allKeys), the store's state among them.

  KEYS[1] pending   ZSET   not used (names the cold store's keys)
  KEYS[2] inflight  ZSET   not used
  KEYS[3] dead      ZSET   not used
  KEYS[4] meta      HASH   not used
  KEYS[5] reason    HASH   not used
  KEYS[6] seq       STRING not used
  KEYS[7] lost      STRING not used
  KEYS[8] counters  HASH   not used
  KEYS[9] signal    LIST   not used (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>" (not used)
  ARGV[2]           limit: at most this many keys deleted

  Reply: {more, deleted}: more is 0 when nothing of the store but its state is left, deleted how many keys this
         call deleted.
  Cost: O(limit), plus the deleted keys' sizes.
]]
-- include: cold
local limit = tonumber(ARGV[2])
local deleted = 0
local chunks = redis.call('ZRANGE', CHUNKS, 0, limit - 1)
local store = cold_store()
for _, name in ipairs(chunks) do
    deleted = deleted + redis.call('DEL', store.chunk_key(name))
end
if #chunks > 0 then
    redis.call('ZREM', CHUNKS, unpack(chunks))
    return {1, deleted}
end
store.load()
local level, split = store.state()
local shards = 2 ^ level + split
local from = tonumber(redis.call('HGET', COLD, 'd') or '0')
local to = math.min(shards, from + limit)
for b = from, to - 1 do
    deleted = deleted + redis.call('DEL', store.shard_key(b))
end
if to > from then
    redis.call('HSET', COLD, 'd', to)
end
return {to > from and 1 or 0, deleted}
