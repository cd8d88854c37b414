--[[
  face_find: for each value, how many copies of it the scope (delayed or due elements) holds, up to a limit, and
  removes them if asked (contains, containsAll, remove(Object), removeAll, a deque's removeLastOccurrence). Copies
  are found through VALUES and counted from the head or the tail of the scope's order: offer order for delayed
  elements, due order (due time, then sequence, as PENDING sorts them) for due ones. So remove(Object) removes the
  copy nearest the head, removeLastOccurrence the one nearest the tail.

  KEYS[1] pending   ZSET   read; removed elements' members removed
  KEYS[2] meta      HASH   read (the payloads are compared, not only digests); removed elements' values deleted
  KEYS[3] lost      STRING incremented per element found with its META value evicted
  KEYS[4] order     ZSET   removed elements' entries removed
  KEYS[5] values    ZSET   ranged by each value's digest; removed and stale entries removed

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           scope: 'delayed' or 'due'
  ARGV[3]           the most copies of each value to count (0: all)
  ARGV[4]           remove: '1' to remove the copies counted, '0' to count them
  ARGV[5]           end: 'head' or 'tail', where counting starts
  ARGV[6..]         the payloads

  Reply: {count...}: one per payload, in order (a payload given twice is looked up twice).
  Cost: O(copies log n) per payload.
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local LOST = KEYS[3]
local ORDER = KEYS[4]
local VALUES = KEYS[5]
-- include: clock, face, face_copies
local now = now_ms()
local scope = ARGV[2]
local limit = tonumber(ARGV[3])
local remove = ARGV[4] == '1'
local from_tail = ARGV[5] == 'tail'

-- The copies of p in scope, at most limit (0: all), nearest the chosen end first. Delayed copies come from VALUES
-- in offer order already; due ones are sorted into due order, which an element offered first does not follow.
local function ordered(p)
    if scope == 'delayed' and not from_tail then
        return copies(p, scope, now, limit)
    end
    local all = copies(p, scope, now, 0)
    if scope ~= 'delayed' then
        local due = {}
        for _, m in ipairs(all) do
            due[m] = due_of(m)
        end
        table.sort(all, function(a, b)
            if due[a] ~= due[b] then
                return due[a] < due[b]
            end
            return a < b
        end)
    end
    local found = {}
    local first, last, step = 1, #all, 1
    if from_tail then
        first, last, step = #all, 1, -1
    end
    for k = first, last, step do
        found[#found + 1] = all[k]
        if #found == limit then
            break
        end
    end
    return found
end

local reply = {}
for i = 6, #ARGV do
    local p = ARGV[i]
    local found = ordered(p)
    if remove then
        for _, m in ipairs(found) do
            drop(m, p)
        end
    end
    reply[#reply + 1] = #found
end
return reply
