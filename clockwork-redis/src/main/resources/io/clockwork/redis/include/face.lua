--[[
  face: the Redisson face's two indexes, kept beside a one-partition queue's own keys in its hash tag. An element is
  a message whose id is its sequence in hex without padding, so its member is <seq as 16 hex digits><seq in hex>.
  It is delayed while its member is
  in PENDING with a due time after the clock, and due (in the destination) once the clock reaches that time.
  ORDER lists the elements offered with a delay, in offer order; an entry whose element fell due or left is stale
  and is dropped by the first script that meets it, so each stale entry costs one removal. VALUES finds an
  element's copies by value: the member <digest><member>, the digest being the first 16 hex digits of the payload's
  SHA-1, sorts a value's copies together, in offer order. Copies are confirmed by comparing payloads, so digests
  that collide cost a comparison, never a wrong answer.
]]
-- include: member, lost, keep

-- The first 16 hex digits of the payload's SHA-1: the prefix of its VALUES entries.
local function digest(p)
    return string.sub(redis.sha1hex(p), 1, 16)
end

-- Files an element with payload p due at `due` into a face queue's keys (this queue's or, for a move, another's):
-- a new sequence, its PENDING member and META value, its ORDER entry if it is due after now, its VALUES entry.
local function file_element(pending, meta, seq, order, values, p, due, now)
    local n = redis.call('INCR', seq)
    local hex = string.format('%016x', n)
    local id = string.format('%x', n)
    local m = hex .. id
    redis.call('ZADD', pending, '+inf', KEEP_MEMBER, due, m)
    redis.call('HSET', meta, KEEP_FIELD, KEEP_VALUE, id, 'D 0 ' .. hex .. ':' .. p)
    if due > now then
        redis.call('ZADD', order, 0, m)
    end
    redis.call('ZADD', values, 0, digest(p) .. m)
end

-- The due time of member m, or nil if it is not in PENDING (taken, removed, or in flight with a plain consumer).
local function due_of(m)
    local s = redis.call('ZSCORE', PENDING, m)
    if s then
        return tonumber(s)
    end
    return nil
end

-- The payload of member m. An element whose META value was evicted is removed from PENDING and ORDER, counted in
-- LOST, and gives nil.
local function payload_of(m)
    local v = redis.call('HGET', META, id_of(m))
    if not v then
        redis.call('ZREM', PENDING, m)
        redis.call('ZREM', ORDER, m)
        lose()
        return nil
    end
    local at = string.find(v, '[:!#]')
    if string.byte(v, at) == 33 then -- '!': a last error recorded by a plain consumer's nack precedes the payload
        local n, from = string.match(v, '^!(%d+)!()', at)
        at = from + tonumber(n)
    end
    if string.byte(v, at) == 35 then -- '#': headers, which face elements never have, unless a plain offer set them
        local n, from = string.match(v, '^#(%d+)#()', at)
        at = from + tonumber(n)
    end
    return string.sub(v, at + 1)
end

-- Removes element m, whose payload is p (nil if unknown), from every key.
local function drop(m, p)
    redis.call('ZREM', PENDING, m)
    redis.call('HDEL', META, id_of(m))
    redis.call('ZREM', ORDER, m)
    if p then
        redis.call('ZREM', VALUES, digest(p) .. m)
    end
end

-- Whether member m is in the scope: 'delayed' (due after now) or 'due' (due at or before now).
local function in_scope(m, scope, now)
    local due = due_of(m)
    if not due then
        return false
    end
    if scope == 'delayed' then
        return due > now
    end
    return due <= now
end

-- The members of payload p's copies in scope, in offer order, at most limit (0: all). VALUES entries of copies that
-- left PENDING without the face (a plain consumer took them) are dropped on the way.
local function copies(p, scope, now, limit)
    local d = digest(p)
    local entries = redis.call('ZRANGEBYLEX', VALUES, '[' .. d, '[' .. d .. '\255')
    local found = {}
    for _, e in ipairs(entries) do
        local m = string.sub(e, 17)
        if not due_of(m) then
            if redis.call('HEXISTS', META, id_of(m)) == 0 then
                redis.call('ZREM', VALUES, e)
            end
        elseif in_scope(m, scope, now) and payload_of(m) == p then -- equal digests: compare the bytes too
            found[#found + 1] = m
            if #found == limit then
                break
            end
        end
    end
    return found
end
