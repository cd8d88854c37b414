--[[
  layouts: fills one candidate Redis layout for pending messages with `count` messages, numbered from `from`, so that
  LayoutHarness can read the growth of used_memory per message. Only the writes of an offer are modelled (no reads,
  no dedup check): memory, not speed, is what this measures.

  Every message has a 27-character id like the client's generated ones, a distinct 100-byte payload and a due time
  one hour ahead, 200 messages per millisecond (a producer at 200,000 offers/s).

  ARGV[1] layout: 'current'   a META hash id -> "D 0 <seq:16 hex>:<payload>" and a PENDING zset of <seq><id> by due
                              time: Clockwork's layout today
                  'redisson'  RDelayedQueue.offer's writes: struct.pack('Bc0Lc0', 8-byte random id, value) into a
                              zset by due time and a list
                  'buckets'   due-time buckets: per window of `window` ms, lists of at most `cap` entries
                              "<id>|<offset ms in window>|<attempts>|<payload>" (a list has no element size limit,
                              unlike a listpack hash or zset), a zset of bucket numbers by window start, and an index
                              id -> bucket number in `shards` small hashes (listpack while at most
                              hash-max-listpack-entries fields)
                  'one-index' 'buckets' with the index in one hash (hashtable encoding)
                  'zset-ids'  'buckets' without an index, plus a zset of ids by due time for order and lookup
  ARGV[2] from    ARGV[3] count    ARGV[4] shards    ARGV[5] cap    ARGV[6] window
]]
local layout = ARGV[1]
local from = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
local shards = tonumber(ARGV[4])
local cap = tonumber(ARGV[5])
local window = tonumber(ARGV[6])
local base = 1764000000000 + 3600000
local pad = string.rep('x', 100 - 17)
for i = from, from + count - 1 do
    local id = 'Qx3kZp9LmN2bVc8dRt5yWe-' .. string.format('%x', i)
    local payload = string.format('value-%010d-', i) .. pad
    local due = base + math.floor(i / 200)
    if layout == 'current' then
        local hex = string.format('%016x', i)
        redis.call('HSET', 'q:meta', id, 'D 0 ' .. hex .. ':' .. payload)
        redis.call('ZADD', 'q:pending', due, hex .. id)
    elseif layout == 'redisson' then
        local rid = string.format('%08x', i * 7919 % 4294967296)
        local v = struct.pack('Bc0Lc0', string.len(rid), rid, string.len(payload), payload)
        redis.call('ZADD', 'q:timeout', due, v)
        redis.call('RPUSH', 'q:list', v)
    else
        local start = due - due % window
        local bucket = string.format('%x', math.floor(i / cap)) -- consecutive messages share a bucket up to cap
        local entry = id .. '|' .. (due - start) .. '|0|' .. payload
        redis.call('RPUSH', 'q:b:' .. bucket, entry)
        redis.call('ZADD', 'q:buckets', start, bucket)
        if layout == 'buckets' then
            redis.call('HSET', 'q:ix:' .. (i % shards), id, bucket)
        elseif layout == 'one-index' then
            redis.call('HSET', 'q:ix', id, bucket)
        else
            redis.call('ZADD', 'q:ids', due, id)
        end
    end
end
return count
