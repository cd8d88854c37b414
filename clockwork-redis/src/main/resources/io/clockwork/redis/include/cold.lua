--[[
  cold: the compact store of messages due far ahead. A sorted-set member costs about 100 bytes and a field of a large
  hash about 90 whatever their content, so one member and one field per message cost more than a 100-byte payload.
  Lists have no element size limit and small hashes stay listpacks, so an offer due at least the queue's compactAfter
  ahead (the fourth word of ARGV[1]) is filed in three small structures instead of PENDING and META:

    <prefix>chunks   ZSET  chunk names by window start: a chunk holds messages due in one WINDOW_MS window, at most
                           CHUNK_CAP of them; the name is "<window number hex>.<k>", k counting the window's chunks
                           (its hex digits after their count, so names of one window sort in creation order)
    <prefix>c:<name> LIST  the chunk's entries "<seq hex>,<due - window start>,<attempts>,<id bytes>,<id><tail>"
                           in offer order (tail as in meta.lua)
    <prefix>x:<b>    HASH  id -> chunk name: the index, split over shards by linear hashing on the first 32 bits of
                           the id's SHA-1, so each shard holds about SHARD_LOAD ids (a listpack while at most
                           hash-max-listpack-entries, 128 by default)
    <prefix>cold     HASH  n (entries in the store), L and s (the index's level and split pointer), d (the next shard
                           a drop deletes)

  All live in the partition's hash tag (a Cluster's slot), named from PENDING's key, so scripts reach them without
  naming them in KEYS. Every id is in exactly one place: META (scheduled, in flight or dead) or the cold store.
  A chunk is promoted whole into PENDING and META, under each message's own sequence and due time, by the first
  poll at or after its window's start, before any of its messages is due; order by (due, seq) is kept. Lookups by
  id (dedup, cancel, reschedule, replace) read the index shard and scan one chunk: O(CHUNK_CAP).
]]
-- include: keys, keep, lost

local COLD_BASE = string.sub(PENDING, 1, #PENDING - 7) -- PENDING is <prefix>pending
local COLD = COLD_BASE .. 'cold'
local CHUNKS = COLD_BASE .. 'chunks'
local WINDOW_MS = 1000
local CHUNK_CAP = 128
local SHARD_LOAD = 40
local COLD_ID_MAX = 60 -- longer ids stay in META: a listpack value is at most 64 bytes by default
local PROMOTE_LIMIT = 512

local cold_n, ix_level, ix_split -- the store's state, read once per call by cold_load
-- Chunks written by this call: window start -> {name, length, k}; entries buffered per chunk name, and how many
-- (indexed already, counted in n by cold_flush).
local cold_open = {}
local cold_buffer = {}
local cold_added = 0

local function cold_load()
    if cold_n == nil then
        local v = redis.call('HMGET', COLD, 'n', 'L', 's')
        cold_n = tonumber(v[1] or '0')
        ix_level = tonumber(v[2] or '0')
        ix_split = tonumber(v[3] or '0')
    end
    return cold_n
end

-- The queue's compactAfter in ms, the fourth word of ARGV[1]; -1 (never) when absent.
local function compact_after()
    return tonumber(string.match(ARGV[1], '^%d+ %d+ %d+ (%-?%d+)') or '-1')
end

local function ix_hash(id)
    return tonumber(string.sub(redis.sha1hex(id), 1, 8), 16)
end

local function shard_key(b)
    return COLD_BASE .. 'x:' .. string.format('%d', b)
end

-- The index shard of an id whose hash is h.
local function ix_key(h)
    cold_load()
    local size = 2 ^ ix_level
    local b = h % size
    if b < ix_split then
        b = h % (size * 2)
    end
    return shard_key(b)
end

local function chunk_key(name)
    return COLD_BASE .. 'c:' .. name
end

local function chunk_name(w, k)
    local kh = string.format('%x', k)
    return string.format('%x.', w) .. #kh .. kh
end

-- Splits index shards, in linear hashing's order, until `entries` ids average at most SHARD_LOAD per shard. Called
-- before ids are added, so that no shard passes hash-max-listpack-entries on the way (Redis never converts a hash
-- back to a listpack).
local function ix_grow(entries)
    cold_load()
    local grown = false
    while entries > SHARD_LOAD * (2 ^ ix_level + ix_split) do
        local size = 2 ^ ix_level
        local from = shard_key(ix_split)
        local all = redis.call('HGETALL', from)
        local moved, gone = {}, {}
        for i = 1, #all, 2 do
            if ix_hash(all[i]) % (size * 2) ~= ix_split then
                moved[#moved + 1] = all[i]
                moved[#moved + 1] = all[i + 1]
                gone[#gone + 1] = all[i]
            end
        end
        if #gone > 0 then
            redis.call('HSET', shard_key(ix_split + size), unpack(moved))
            redis.call('HDEL', from, unpack(gone))
        end
        ix_split = ix_split + 1
        if ix_split == size then
            ix_level = ix_level + 1
            ix_split = 0
        end
        grown = true
    end
    if grown then
        redis.call('HSET', COLD, 'L', ix_level, 's', ix_split)
    end
end

-- Adds delta to the store's entry count; resets the index to one shard when the store empties (every shard is then
-- empty, and Redis has deleted it), unless this call has indexed ids it has not counted yet.
local function cold_count(delta)
    if delta == 0 then
        return
    end
    cold_load()
    cold_n = redis.call('HINCRBY', COLD, 'n', delta)
    if cold_n <= 0 and cold_added == 0 then
        redis.call('HDEL', COLD, 'n', 'L', 's')
        cold_n, ix_level, ix_split = 0, 0, 0
    end
end

local function cold_entry(seq, offset, attempts, id, tail)
    return string.format('%x,%d,%d,%d,', seq, offset, attempts, #id) .. id .. tail
end

-- seq, offset, attempts, id and tail of an entry.
local function parse_entry(e)
    local seq, offset, attempts, len, at = string.match(e, '^(%x+),(%d+),(%d+),(%d+),()')
    len = tonumber(len)
    return tonumber(seq, 16), tonumber(offset), tonumber(attempts), string.sub(e, at, at + len - 1),
        string.sub(e, at + len)
end

-- Whether a message due at `due` (with its delay's clock floor) goes to the store.
local function goes_cold(id, due, floor, after)
    return after >= 0 and due > floor and due - floor >= after and #id <= COLD_ID_MAX
end

-- Files a message in the store (the chunk write is buffered until cold_flush); returns its window start.
local function cold_add(id, due, seq, attempts, tail)
    local ws = due - due % WINDOW_MS
    local c = cold_open[ws]
    if c == nil then
        local last = redis.call('ZREVRANGEBYSCORE', CHUNKS, ws, ws, 'LIMIT', 0, 1)
        if last[1] then
            c = {last[1], redis.call('LLEN', chunk_key(last[1])), tonumber(string.match(last[1], '%.%d(%x+)$'), 16)}
        else
            c = {chunk_name(ws / WINDOW_MS, 0), 0, 0}
        end
        cold_open[ws] = c
    end
    if c[2] >= CHUNK_CAP then
        c = {chunk_name(ws / WINDOW_MS, c[3] + 1), 0, c[3] + 1}
        cold_open[ws] = c
    end
    local name = c[1]
    local b = cold_buffer[name]
    if b == nil then
        b = {ws}
        cold_buffer[name] = b
    end
    b[#b + 1] = cold_entry(seq, due - ws, attempts, id, tail)
    c[2] = c[2] + 1
    cold_added = cold_added + 1
    ix_grow(cold_load() + cold_added)
    redis.call('HSET', ix_key(ix_hash(id)), id, name)
    return ws
end

-- Writes the buffered chunk entries and counts them. Each written chunk is (re)added to CHUNKS: a removal in this
-- call may have emptied it, and so deleted it, after this call chose it.
local function cold_flush()
    for name, b in pairs(cold_buffer) do
        redis.call('RPUSH', chunk_key(name), unpack(b, 2))
        redis.call('ZADD', CHUNKS, b[1], name)
    end
    cold_buffer = {}
    local added = cold_added
    cold_added = 0
    cold_count(added)
end

-- Finds a message in the store without writing: {chunk name, entry, shard key, window start}, or nil and the shard
-- key if the index names a chunk that no longer holds it (the chunk's key was evicted), or nil.
local function cold_peek(id)
    if cold_load() == 0 then
        return nil
    end
    local xk = ix_key(ix_hash(id))
    local name = redis.call('HGET', xk, id)
    if not name then
        return nil
    end
    local needle = ',' .. #id .. ',' .. id
    for _, e in ipairs(redis.call('LRANGE', chunk_key(name), 0, -1)) do
        if string.find(e, needle, 1, true) and select(4, parse_entry(e)) == id then
            return {name, e, xk, tonumber(redis.call('ZSCORE', CHUNKS, name) or '0')}
        end
    end
    return nil, xk
end

-- cold_peek, removing an index entry whose chunk no longer holds the message and counting the message lost.
local function cold_find(id)
    local found, dangling = cold_peek(id)
    if dangling then
        redis.call('HDEL', dangling, id)
        cold_count(-1)
        lose()
    end
    return found
end

-- Removes a message cold_find found.
local function cold_remove(found, id)
    local key = chunk_key(found[1])
    redis.call('LREM', key, 1, found[2])
    if redis.call('EXISTS', key) == 0 then
        redis.call('ZREM', CHUNKS, found[1])
    end
    redis.call('HDEL', found[3], id)
    cold_count(-1)
end

-- The META value a cold message would have (see meta.lua), with its due time.
local function cold_meta(found)
    local seq, offset, attempts, _, tail = parse_entry(found[2])
    return 'D ' .. attempts .. ' ' .. string.format('%016x', seq) .. tail, found[4] + offset
end

-- The earliest chunk's window start, or nil: when a poller must next promote.
local function cold_head()
    local c = redis.call('ZRANGE', CHUNKS, 0, 0, 'WITHSCORES')
    return c[2] and tonumber(c[2])
end

-- Promotes the chunks whose window has started by `now` into PENDING and META, whole chunks until at least `limit`
-- messages moved; returns how many moved.
local function promote(now, limit)
    local moved = 0
    while moved < limit do
        local c = redis.call('ZRANGEBYSCORE', CHUNKS, '-inf', now, 'WITHSCORES', 'LIMIT', 0, 1)
        if not c[1] then
            break
        end
        local key = chunk_key(c[1])
        local ws = tonumber(c[2])
        local entries = redis.call('LRANGE', key, 0, -1)
        redis.call('DEL', key)
        redis.call('ZREM', CHUNKS, c[1])
        local scored = {'+inf', KEEP_MEMBER}
        local states = {KEEP_FIELD, KEEP_VALUE}
        for i, e in ipairs(entries) do
            local seq, offset, attempts, id, tail = parse_entry(e)
            local hex = string.format('%016x', seq)
            scored[2 * i + 1] = string.format('%d', ws + offset)
            scored[2 * i + 2] = hex .. id
            states[2 * i + 1] = id
            states[2 * i + 2] = 'D ' .. attempts .. ' ' .. hex .. tail
            redis.call('HDEL', ix_key(ix_hash(id)), id)
        end
        if #entries > 0 then
            redis.call('ZADD', PENDING, unpack(scored))
            redis.call('HSET', META, unpack(states))
            cold_count(-#entries)
        else
            lose() -- the chunk's key was evicted: at least one message is gone
        end
        moved = moved + #entries
    end
    return moved
end
