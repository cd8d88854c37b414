--[[
  meta: a message's state, one META value per message: "<state> <attempts> <seq as 16 hex digits>:<payload>".
  state is D (live: scheduled while its member <seq><id> is in PENDING, in flight while it is in INFLIGHT) or X
  (dead, its member in DEAD); attempts counts the deliveries before this scheduling, so a delivery in flight is
  attempt attempts + 1; seq is the member's prefix (so the member is seq .. id, no formatting) and the delivery's
  receipt. A poll changes no META value: only where the member is changes.
]]
-- include: keys

-- Returns state, attempts, seq (a number) and tail (':' .. payload) of a message; nil if it has no META value.
local function get_meta(id)
    local v = redis.call('HGET', META, id)
    if not v then
        return nil
    end
    local state, attempts, seq, at = string.match(v, '^(%a) (%d+) (%x+)()')
    return state, tonumber(attempts), tonumber(seq, 16), string.sub(v, at)
end

-- Writes a message's META value and returns its member for seq.
local function set_meta(id, state, attempts, seq, tail)
    local hex = string.format('%016x', seq)
    redis.call('HSET', META, id, state .. ' ' .. attempts .. ' ' .. hex .. tail)
    return hex .. id
end
