--[[
  cold: the compact store of messages due far ahead. A sorted-set member costs about 100 bytes and a field of a large
  hash about 90 whatever their content, so one member and one field per message cost more than a 100-byte payload.
  Lists have no element size limit and small hashes stay listpacks, so an offer due at least the queue's compactAfter
  ahead (the fourth word of ARGV[1]) is filed in small structures instead of PENDING and META:

    <prefix>chunks   ZSET  chunk names by the earliest due time among their entries: a chunk holds up to CHUNK_CAP
                           messages due in one WINDOW_MS window; its name is "<window number hex>.<k hex>", k from
                           the store's chunk counter
    <prefix>c:<name> LIST  the chunk's entries "<seq hex>,<due - window start>,<attempts>,<id bytes>,<id><tail>"
                           in offer order (tail as in meta.lua), or for a placed message (below)
                           "<seq hex>,<due - window start>,<attempts>,p<client part bytes>,<client part><tail>"; a
                           removed entry is overwritten with '' (a tombstone) rather than removed, so every entry
                           keeps its position
    <prefix>open     HASH  window number hex -> the window's chunk that offers append to, while it exists
    <prefix>x:<b>    HASH  id -> "<chunk name>,<position>": the index (the entry's position in the chunk, from 0), split
                           over shards by linear hashing on the first 32 bits of
                           the SHA-1 of the id with its last byte divided by 8 (up to 8 ids differing only there
                           share a shard), so each shard holds about SHARD_LOAD ids (a listpack while at most
                           hash-max-listpack-entries, 128 by default)
    <prefix>cold     HASH  n (entries in the store), i (entries in the index), L and s (the index's level and split
                           pointer), k (the chunk counter), d (the next shard a drop deletes), and per chunk with
                           tombstones its name -> how many; a chunk whose entries are all tombstones is deleted
    <prefix>placed   STREAM while the queue retries lost replies (the fifth word of ARGV[1], the window in ms, is
                           positive): per offer call that placed messages and client prefix, an entry {k <client
                           prefix>, r <runs of counters and places, see offer.lua>}, trimmed to the window, so that
                           a retry of the call finds what its first attempt placed (see placed ids below)

  All live in the partition's hash tag (a Cluster's slot), named from PENDING's key (cold_keys.lua): the chunks and
  index shards are created as the store grows, so no script could name them in KEYS beforehand. Every id is in
  exactly one place: META (scheduled, in flight or dead) or the cold store.
  A chunk is promoted whole into PENDING and META, under each message's own sequence and due time, by the first
  poll at or after its earliest due time, so order by (due, seq) and delivery times are the per-message layout's.
  Lookups by id (dedup, cancel, reschedule, replace) read the index shard and the one entry at its position (LINDEX:
  O(CHUNK_CAP) in the server's memory, O(1) in Lua), and a removal overwrites it: no entry is read into Lua but the
  one looked up. A chunk's score stays what it was written as when an entry leaves, so it is a lower bound of its
  earliest entry's due time, less than WINDOW_MS early (a chunk's entries are due in one window): a poller may promote
  a chunk up to that much before its first entry is due, and messages are still delivered at their own due times.
  An index value whose position no longer holds its entry means the chunk's key was evicted: the entry is counted
  lost.

  Placed ids. A message offered with an id the client just generated ("<22 base64url chars>-<counter base 36>", see
  IdGenerator: its client part) is filed without an index entry: the offer's reply gives its place, and the id the
  client hands out is "<client part>.<chunk name>.<position hex>". A lookup of an id of that shape reads the one
  entry at its place, which must be a placed entry of the same client part; if it is not there (the message moved,
  was promoted or is gone), the lookup goes on as for any id, so a placed message that a replace, extend or
  reschedule files again (under its full id, as any id) is found through the index. An offer, a cancel and a
  promotion of a placed message write and read no index shard, and the store holds no index entry for it.
]]
-- include: cold_keys, keep

local WINDOW_MS = 1000
local CHUNK_CAP = 128
local SHARD_LOAD = 24
local COLD_ID_MAX = 60 -- longer ids stay in META: a listpack value is at most 64 bytes by default
local PROMOTE_LIMIT = 512

-- Whether s is a generated id's client part: 22 base64url characters, '-', a counter in base 36 (IdGenerator).
local function is_client_part(s)
    return #s >= 24 and #s <= 36 and string.byte(s, 23) == 45 and string.find(s, '^[%w_%-]+$') ~= nil
        and string.find(s, '^[%da-z]+$', 24) ~= nil
end

-- A placed id's client part, chunk name and position; nil for any other id.
local function placed_parts(id)
    if string.byte(id, 23) ~= 45 then
        return nil
    end
    local part, name, pos = string.match(id, '^([^%.]+)%.(%x+%.%x+)%.(%x+)$')
    if part and is_client_part(part) then
        return part, name, tonumber(pos, 16)
    end
    return nil
end

-- How long the places of an offer call are kept for its retries: the fifth word of ARGV[1], in ms; 0 when absent.
local function placed_window()
    return tonumber(string.match(ARGV[1], '^%d+ %d+ %d+ %-?%d+ (%d+)') or '0')
end

-- The queue's compactAfter in ms, the fourth word of ARGV[1]; -1 (never) when absent. Parsed once per settings
-- string: a function library keeps it between calls (Lua interns strings, so the check is a pointer compare).
local compact_after_of
local compact_after_ms
local function compact_after()
    if ARGV[1] ~= compact_after_of then
        compact_after_of = ARGV[1]
        compact_after_ms = tonumber(string.match(ARGV[1], '^%d+ %d+ %d+ (%-?%d+)') or '-1')
    end
    return compact_after_ms
end

-- Whether a message due at `due` (with its delay's clock floor) goes to the store.
local function goes_cold(id, due, floor, after)
    return after >= 0 and due > floor and due - floor >= after and #id <= COLD_ID_MAX
end

-- The earliest due time in the store, or nil: when a poller must next promote.
local function cold_head()
    local c = redis.call('ZRANGE', CHUNKS, '0', '0', 'WITHSCORES')
    return c[2] and tonumber(c[2])
end

-- The store's functions (cold_built), made by the first cold_store() that needs them: creating them costs several
-- microseconds (closures and their upvalues), which scripts that never touch the store (most offers and polls) skip.
-- A script creates them on each call that uses the store; a function library once, at its first such call, and then
-- only starts each call with begin (per-call state afresh). cold is the store for this call: nil until cold_store().
-- count_lost counts a message found with part of its state evicted (lost.lua's lose); a script that only reads the
-- store (load, peek, live, meta, parse) passes none, and never reaches it.
-- per call {
local cold = nil
-- per call }
local cold_built = nil
local function build_cold()
    local count_lost
    local cold_n, ix_level, ix_split -- the store's state, read once per call by cold_load
    local ix_n, ix_n_stored -- ids in the index, and whether the store holds that count (field i)
    -- Chunks this call appends to: window number -> {name, length, earliest due or nil, whether its score must be
    -- written}; entries buffered per chunk name ({chunk, entry...}); how many (indexed already, counted by cold_flush).
    local cold_open, cold_buffer, cold_added
    local ix_added -- of cold_added, those indexed
    local ix_buffer -- index writes of this call, per shard key: {id, chunk name, ...}
    local ix_hashes -- group key -> hash, for this call

    -- Starts a call: nothing read, nothing buffered yet.
    local function begin(lost)
        count_lost = lost
        cold_n, ix_level, ix_split, ix_n, ix_n_stored = nil, nil, nil, nil, nil
        cold_open, cold_buffer, cold_added, ix_added, ix_buffer, ix_hashes = {}, {}, 0, 0, {}, {}
    end

    local function cold_load()
        if cold_n == nil then
            local v = redis.call('HMGET', COLD, 'n', 'L', 's', 'i')
            cold_n = tonumber(v[1] or '0')
            ix_level = tonumber(v[2] or '0')
            ix_split = tonumber(v[3] or '0')
            ix_n = tonumber(v[4] or '0')
            ix_n_stored = v[4] ~= false -- HMGET gives false for an absent field
        end
        return cold_n
    end

    -- Adds delta to the count of indexed ids.
    local function ix_count(delta)
        cold_load()
        if ix_n_stored then
            ix_n = redis.call('HINCRBY', COLD, 'i', delta)
        else
            ix_n = ix_n + delta
            redis.call('HSET', COLD, 'i', ix_n)
            ix_n_stored = true
        end
    end

    -- An id's index hash: of the id with its last byte divided by 8, so that groups of up to 8 ids differing only
    -- there (a generator's consecutive counters, "order-1234" and "order-1235") share a shard and a batch writes
    -- each shard it touches once; groups stay small enough for a shard's load to stay far below 128.
    local function ix_hash(id)
        local group = string.sub(id, 1, -2) .. string.char(math.floor(string.byte(id, -1) / 8))
        local h = ix_hashes[group]
        if h == nil then
            h = tonumber(string.sub(redis.sha1hex(group), 1, 8), 16)
            ix_hashes[group] = h
        end
        return h
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

    -- Writes the buffered index entries, one HSET per shard.
    local function ix_flush()
        for key, fields in pairs(ix_buffer) do
            redis.call('HSET', key, unpack(fields))
        end
        ix_buffer = {}
    end

    -- Appends id (and value, unless nil) to the list `groups` keeps for id's index shard.
    local function per_shard(groups, id, value)
        local key = ix_key(ix_hash(id))
        local list = groups[key]
        if list == nil then
            list = {}
            groups[key] = list
        end
        list[#list + 1] = id
        if value ~= nil then
            list[#list + 1] = value
        end
    end

    -- The window number of a chunk name and the window's start.
    local function window_of(name)
        local w = tonumber(string.match(name, '^(%x+)%.'), 16)
        return w, w * WINDOW_MS
    end

    -- Splits index shards, in linear hashing's order, until `entries` ids average at most SHARD_LOAD per shard. Called
    -- before ids are added, so that no shard passes hash-max-listpack-entries on the way (Redis never converts a hash
    -- back to a listpack).
    local function ix_grow(entries)
        cold_load()
        local grown = false
        while entries > SHARD_LOAD * (2 ^ ix_level + ix_split) do
            ix_flush() -- buffered entries are keyed by the shards before this split
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
            redis.call('HDEL', COLD, 'n', 'L', 's', 'i')
            cold_n, ix_level, ix_split, ix_n, ix_n_stored = 0, 0, 0, 0, false -- i is written with the next n
        end
    end

    local function cold_entry(seq, offset, attempts, id, tail, placed)
        return string.format('%x,%d,%d,%s%d,', seq, offset, attempts, placed and 'p' or '', #id) .. id .. tail
    end

    -- seq, offset, attempts, id and tail of an entry, and whether it is placed. A placed entry's id is its client
    -- part, or its whole id when the chunk's name and the entry's position are given.
    local function parse_entry(e, name, pos)
        local seq, offset, attempts, p, len, at = string.match(e, '^(%x+),(%d+),(%d+),(p?)(%d+),()')
        len = tonumber(len)
        local id = string.sub(e, at, at + len - 1)
        local placed = p == 'p'
        if placed and name then
            id = id .. '.' .. name .. '.' .. string.format('%x', pos)
        end
        return tonumber(seq, 16), tonumber(offset), tonumber(attempts), id, string.sub(e, at + len), placed
    end

    -- Files a message in the store (the chunk write is buffered until cold_flush). A placed message (id is a client
    -- part) gets no index entry; its place ("<chunk name>.<position hex>"), chunk name and position are returned.
    local function cold_add(id, due, seq, attempts, tail, placed)
        local ws = due - due % WINDOW_MS
        local w = ws / WINDOW_MS
        local c = cold_open[w]
        if c == nil then
            local name = redis.call('HGET', OPEN, string.format('%x', w))
            if name then
                local score = redis.call('ZSCORE', CHUNKS, name)
                c = {name, redis.call('LLEN', chunk_key(name)), score and tonumber(score), false}
            end
        end
        if c == nil or c[2] >= CHUNK_CAP then
            local name = string.format('%x.%x', w, redis.call('HINCRBY', COLD, 'k', 1))
            redis.call('HSET', OPEN, string.format('%x', w), name)
            c = {name, 0, nil, false}
        end
        cold_open[w] = c
        local b = cold_buffer[c[1]]
        if b == nil then
            b = {c}
            cold_buffer[c[1]] = b
        end
        b[#b + 1] = cold_entry(seq, due - ws, attempts, id, tail, placed)
        local pos = c[2]
        c[2] = pos + 1
        if c[3] == nil or due < c[3] then
            c[3] = due
            c[4] = true
        end
        cold_added = cold_added + 1
        if placed then
            return c[1] .. '.' .. string.format('%x', pos), c[1], pos
        end
        ix_added = ix_added + 1
        cold_load()
        ix_grow(ix_n + ix_added)
        per_shard(ix_buffer, id, c[1] .. ',' .. pos) -- written by ix_flush
    end

    -- Writes the buffered chunk entries, the chunks' new earliest due times, and counts the entries.
    local function cold_flush()
        ix_flush()
        for name, b in pairs(cold_buffer) do
            local c = b[1]
            redis.call('RPUSH', chunk_key(name), unpack(b, 2))
            if c[4] then
                redis.call('ZADD', CHUNKS, string.format('%d', c[3]), name)
                c[4] = false
            end
        end
        cold_buffer = {}
        local added, indexed = cold_added, ix_added
        cold_added, ix_added = 0, 0
        cold_count(added)
        if indexed > 0 or (added > 0 and not ix_n_stored) then
            ix_count(indexed)
        end
    end

    -- Forgets a chunk that no longer exists: the window's open chunk if it is that one, and this call's cache of it.
    local function cold_close(name)
        local w = window_of(name)
        local wh = string.format('%x', w)
        if redis.call('HGET', OPEN, wh) == name then
            redis.call('HDEL', OPEN, wh)
        end
        if cold_open[w] and cold_open[w][1] == name then
            cold_open[w] = nil
        end
    end

    -- Finds a message in the store without writing: {chunk name, entry, shard key (false for a placed message), the
    -- entry's position}, or nil and the shard key if the index names a chunk that does not hold it (the chunk's key
    -- was evicted), or nil.
    local function cold_peek(id)
        if cold_load() == 0 then
            return nil
        end
        local part, at_name, at_pos = placed_parts(id)
        if part then
            local e = redis.call('LINDEX', chunk_key(at_name), at_pos)
            if e and e ~= '' then
                local _, _, _, stored, _, placed = parse_entry(e)
                if placed and stored == part then
                    return {at_name, e, false, at_pos}
                end
            end
        end
        if ix_n == 0 then
            return nil
        end
        local xk = ix_key(ix_hash(id))
        local at = redis.call('HGET', xk, id)
        if not at then
            return nil
        end
        local name, pos = string.match(at, '^(.-),(%d+)$')
        pos = tonumber(pos)
        local e = redis.call('LINDEX', chunk_key(name), pos)
        if e and e ~= '' and select(4, parse_entry(e)) == id then
            return {name, e, xk, pos}
        end
        return nil, xk
    end

    -- cold_peek, removing an index entry whose chunk no longer holds the message and counting the message lost.
    local function cold_find(id)
        local found, dangling = cold_peek(id)
        if dangling then
            redis.call('HDEL', dangling, id)
            ix_count(-1)
            cold_count(-1)
            count_lost()
        end
        return found
    end

    -- Removes a message cold_find found: its entry becomes a tombstone, counted in COLD; the chunk is deleted with its
    -- last live entry. Entries this call buffered for the chunk must be flushed first (they count in its length).
    local function cold_remove(found, id)
        local name = found[1]
        local key = chunk_key(name)
        redis.call('LSET', key, found[4], '')
        if found[3] then
            redis.call('HDEL', found[3], id)
            ix_count(-1)
        end
        cold_count(-1)
        if redis.call('HINCRBY', COLD, name, 1) >= redis.call('LLEN', key) then
            redis.call('DEL', key)
            redis.call('HDEL', COLD, name)
            redis.call('ZREM', CHUNKS, name)
            cold_close(name)
        end
    end

    -- How many messages a chunk holds: its length less its tombstones.
    local function cold_live(name)
        return redis.call('LLEN', chunk_key(name)) - tonumber(redis.call('HGET', COLD, name) or '0')
    end

    -- The META value a cold message would have (see meta.lua), with its due time.
    local function cold_meta(name, entry)
        local seq, offset, attempts, _, tail = parse_entry(entry)
        local _, ws = window_of(name)
        return 'D ' .. attempts .. ' ' .. string.format('%016x', seq) .. tail, ws + offset
    end

    -- Promotes the chunks whose earliest message is due by `now` into PENDING and META, whole chunks until at least
    -- `limit` messages moved; returns how many moved.
    local function promote(now, limit)
        local moved = 0
        while moved < limit do
            local c = redis.call('ZRANGEBYSCORE', CHUNKS, '-inf', now, 'LIMIT', 0, 1)
            if not c[1] then
                break
            end
            local name = c[1]
            local key = chunk_key(name)
            local _, ws = window_of(name)
            local entries = redis.call('LRANGE', key, 0, -1)
            redis.call('DEL', key)
            redis.call('ZREM', CHUNKS, name)
            redis.call('HDEL', COLD, name)
            cold_close(name)
            local scored = {'+inf', KEEP_MEMBER}
            local states = {KEEP_FIELD, KEEP_VALUE}
            local unindexed = {} -- shard key -> ids
            local live, indexed = 0, 0
            for i, e in ipairs(entries) do
                if e ~= '' then
                    live = live + 1
                    local seq, offset, attempts, id, tail, placed = parse_entry(e, name, i - 1)
                    local hex = string.format('%016x', seq)
                    scored[2 * live + 1] = string.format('%d', ws + offset)
                    scored[2 * live + 2] = hex .. id
                    states[2 * live + 1] = id
                    states[2 * live + 2] = 'D ' .. attempts .. ' ' .. hex .. tail
                    if not placed then
                        per_shard(unindexed, id)
                        indexed = indexed + 1
                    end
                end
            end
            for key, ids in pairs(unindexed) do
                redis.call('HDEL', key, unpack(ids))
            end
            if indexed > 0 then
                ix_count(-indexed)
            end
            if live > 0 then
                redis.call('ZADD', PENDING, unpack(scored))
                redis.call('HSET', META, unpack(states))
                cold_count(-live)
            elseif #entries == 0 then
                count_lost() -- the chunk's key was evicted: at least one message is gone
            end
            moved = moved + live
        end
        return moved
    end
    return {
        begin = begin, load = cold_load, state = function() return ix_level, ix_split end, added = function() return cold_added end,
        add = cold_add, flush = cold_flush, peek = cold_peek, find = cold_find, remove = cold_remove,
        meta = cold_meta, parse = parse_entry, promote = promote, chunk_key = chunk_key, shard_key = shard_key,
        live = cold_live,
    }
end

local function cold_store(count_lost)
    if cold == nil then
        if cold_built == nil then
            cold_built = build_cold()
        end
        cold_built.begin(count_lost)
        cold = cold_built
    end
    return cold
end
