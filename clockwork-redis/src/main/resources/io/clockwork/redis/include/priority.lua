--[[
  priority: a message's priority as its tail carries it, the header clockwork-priority, which the client writes first
  in the header block (Tail.of), and its score in READY (ready.lua).
]]
-- include: ready_keys

-- The priority in the tail "[!<n>!<error>][#<h>#<headers>]:<payload>" (meta.lua) that starts at index `at` of v: 0
-- if the header block starts with another header or there is no block. A handful of string calls.
local function tail_priority(v, at)
    local b = string.byte(v, at)
    if b == 33 then -- '!': a last error of n bytes
        local n, from = string.match(v, '^!(%d+)!()', at)
        at = from + tonumber(n)
        b = string.byte(v, at)
    end
    if b ~= 35 then -- '#': no header block
        return 0
    end
    local first = string.find(v, '#', at + 1, true) + 1 -- the first header, past "#<h>#"
    if string.sub(v, first, first + 18) ~= 'clockwork-priority=' then
        return 0
    end
    local colon = string.find(v, ':', first + 19, true) -- "=<value bytes>:<value>"
    return tonumber(string.sub(v, colon + 1, colon + tonumber(string.sub(v, first + 19, colon - 1)))) or 0
end

-- A due message's score in READY: the highest priority first, then the earliest due time. Exact below 2^53.
local function ready_score(priority, due)
    return (1000 - priority) * PRIORITY_SPAN + due
end
