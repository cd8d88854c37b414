--[[
  face_payload: reads a Redisson face element's payload from its META value (face.lua), dropping an element whose
  META value was evicted.
]]
-- include: member, lost

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
