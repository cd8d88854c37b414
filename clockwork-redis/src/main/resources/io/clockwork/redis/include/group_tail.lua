--[[
  group_tail: a message's group as its tail carries it, the header clockwork-group, which the client writes first in
  the header block, or right after a priority (Tail.of), so a script reads it with a few string calls.
]]

-- The group in the tail "[!<n>!<error>][#<h>#<headers>]:<payload>" (meta.lua) that starts at index `at` of v: nil if
-- the block's first header (after a priority) is another one, or there is no block; and the priority the block's
-- first header carries (priority.lua's tail_priority, read on the way), 0 if none.
local function tail_group(v, at)
    local b = string.byte(v, at)
    if b == 33 then -- '!': a last error of n bytes
        local n, from = string.match(v, '^!(%d+)!()', at)
        at = from + tonumber(n)
        b = string.byte(v, at)
    end
    if b ~= 35 then -- '#': no header block
        return nil, 0
    end
    local sep = string.find(v, '#', at + 1, true)
    local last = sep + tonumber(string.sub(v, at + 1, sep - 1)) -- the block's last byte
    local first = sep + 1
    local priority = 0
    if string.sub(v, first, first + 18) == 'clockwork-priority=' then
        local colon = string.find(v, ':', first + 19, true) -- "=<value bytes>:<value>"
        first = colon + 1 + tonumber(string.sub(v, first + 19, colon - 1))
        priority = tonumber(string.sub(v, colon + 1, first - 1)) or 0
    end
    if first > last or string.sub(v, first, first + 15) ~= 'clockwork-group=' then
        return nil, priority
    end
    local colon = string.find(v, ':', first + 16, true)
    return string.sub(v, colon + 1, colon + tonumber(string.sub(v, first + 16, colon - 1))), priority
end

-- The group of a META value "<state> <attempts> <seq><tail>" (meta.lua), or nil.
local function meta_group(v)
    return tail_group(v, string.find(v, ' ', 3, true) + 17) -- past "<state> <attempts> " and 16 hex digits
end
