--[[
  cancel_cost: cancels of compact messages written straight against RedisDelayedQueue's compact store (see
  clockwork-redis include/cold.lua for the layout), without the queue's script library, for CancelCostHarness.

  ARGV[1] the partition's key prefix ("cw:{<queue>:<p>}:"), ARGV[2] the mode:
    locate  ARGV[3..]: ids -> "<chunk>,<position>" each ('' if not indexed); reads only
    unindex ARGV[3..]: ids whose index entries are deleted
    two     ARGV[3]: id; reads the index shard and the chunk entry, tombstones it and deletes the index entry: the
            commands the queue's cancel makes, without the library
    one     ARGV[3..5]: id, chunk, position; tombstones the entry there: a cancel that knows where its message is
  Replies: the list for locate; otherwise 1 if a message was removed, 0 if not.
]]
local base, mode = ARGV[1], ARGV[2]
local cold = base .. 'cold'

local function shard_of(level, split)
    return function(id)
        local group = string.sub(id, 1, -2) .. string.char(math.floor(string.byte(id, -1) / 8))
        local h = tonumber(string.sub(redis.sha1hex(group), 1, 8), 16)
        local size = 2 ^ level
        local b = h % size
        if b < split then
            b = h % (size * 2)
        end
        return base .. 'x:' .. string.format('%d', b)
    end
end

local function remove(name, pos, id)
    local key = base .. 'c:' .. name
    local e = redis.call('LINDEX', key, pos)
    if not e or not string.find(e, ',' .. #id .. ',' .. id, 1, true) then
        return 0
    end
    redis.call('LSET', key, pos, '')
    redis.call('HINCRBY', cold, 'n', -1)
    if redis.call('HINCRBY', cold, name, 1) >= redis.call('LLEN', key) then
        redis.call('DEL', key)
        redis.call('HDEL', cold, name)
        redis.call('ZREM', base .. 'chunks', name)
        local window = string.match(name, '^(%x+)%.')
        if redis.call('HGET', base .. 'open', window) == name then
            redis.call('HDEL', base .. 'open', window)
        end
    end
    return 1
end

local state = redis.call('HMGET', cold, 'n', 'L', 's')
if mode == 'one' then
    return remove(ARGV[4], tonumber(ARGV[5]), ARGV[3])
end
local shard = shard_of(tonumber(state[2] or '0'), tonumber(state[3] or '0'))
if mode == 'two' then
    local id = ARGV[3]
    local key = shard(id)
    local at = redis.call('HGET', key, id)
    if not at then
        return 0
    end
    local name, pos = string.match(at, '^(.-),(%d+)$')
    local removed = remove(name, tonumber(pos), id)
    redis.call('HDEL', key, id)
    return removed
end
local out = {}
for i = 3, #ARGV do
    if mode == 'locate' then
        out[#out + 1] = redis.call('HGET', shard(ARGV[i]), ARGV[i]) or ''
    else
        redis.call('HDEL', shard(ARGV[i]), ARGV[i])
    end
end
return out
