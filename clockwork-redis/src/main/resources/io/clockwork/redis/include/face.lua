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
-- include: keep

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
