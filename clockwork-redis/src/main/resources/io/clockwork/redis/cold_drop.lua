--[[
  cold_drop: deletes part of the partition's cold store (cold.lua) before the queue's own keys are deleted: first
  its chunk lists with the block shards of their generated ids (each chunk read whole for those), then its hashed
  index shards: per call at most limit / 32 chunks (limit * 4 entries) or `limit` hashed shards, so that no call
  blocks Redis for long. The
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
  ARGV[2]           limit: at most this many hashed shards, or a 32nd as many chunks, deleted

  Reply: {more, deleted}: more is 0 when nothing of the store but its state is left, deleted how many keys this
         call deleted.
  Cost: O(limit), plus the deleted keys' sizes.
]]
-- include: cold
local limit = tonumber(ARGV[2])
local deleted = 0
local chunks = redis.call('ZRANGE', CHUNKS, 0, math.ceil(limit / 32) - 1)
local store = cold_store()
local blocks = {}
for _, name in ipairs(chunks) do
    local key = store.chunk_key(name)
    for _, e in ipairs(redis.call('LRANGE', key, 0, -1)) do
        if e ~= '' then
            local shard, hashed = store.id_shard(select(4, store.parse(e)))
            if not hashed and not blocks[shard] then
                blocks[shard] = true
                deleted = deleted + redis.call('DEL', shard)
            end
        end
    end
    deleted = deleted + redis.call('DEL', key)
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
