--[[
  meta: a message's state, one META value per message: "<state> <attempts> <seq as 16 hex digits><tail>", where the tail
  is "[!<n>!<error>][#<h>#<headers>]:<payload>": an optional last error of n bytes, recorded by a consumer's nack with a
  reason on a live message, then an optional header block of h bytes that the client encodes and parses (each header
  "<name>=<value bytes>:<value>"; names are tokens of letters, digits, '-', '_' and '.'; a priority, clockwork-priority,
  comes first: ready.lua), then ':' and the payload. A message without headers has no block, so its value reads as it
  always has: "D 0 <seq>:<payload>". state is D (live: scheduled while its member <seq><id> is in PENDING or READY
  (ready.lua), in flight while it is in INFLIGHT) or X (dead, its member in DEAD; a dead message's tail has no error: it
  is its reason); attempts counts the deliveries before this scheduling, so a delivery in flight is attempt attempts +
  1; seq is the member's prefix (so the member is seq .. id, no formatting) and the delivery's receipt. A poll changes
  no META value: only where the member is changes. Scripts that move a message pass its tail on whole (split_error takes
  off only the error), so headers travel through nacks, expiries, deaths and requeues without a script reading them. The
  last error lives and dies with the META value, so an ack or a cancel costs nothing more for it.
]]

-- Returns state, attempts, seq (a number) and tail (see above) of a message; nil if it has no META value.
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

-- Splits a tail into the last error it records (nil if none) and the rest: [#<h>#<headers>]:<payload>.
local function split_error(tail)
    if string.byte(tail, 1) ~= 33 then -- not '!'
        return nil, tail
    end
    local n, at = string.match(tail, '^!(%d+)!()')
    n = tonumber(n)
    return string.sub(tail, at, at + n - 1), string.sub(tail, at + n)
end

-- A tail recording err as the last error, before `plain` (a tail without an error).
local function with_error(err, plain)
    return '!' .. #err .. '!' .. err .. plain
end
