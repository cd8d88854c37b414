--[[
  face_copies: finds and removes a Redisson face element's copies by value, through VALUES (face.lua).
]]
-- include: face, face_payload, member

-- Removes element m, whose payload is p (nil if unknown), from every key.
local function drop(m, p)
    redis.call('ZREM', PENDING, m)
    redis.call('HDEL', META, id_of(m))
    redis.call('ZREM', ORDER, m)
    if p then
        redis.call('ZREM', VALUES, digest(p) .. m)
    end
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
