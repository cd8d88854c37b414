--[[
  face_find: for each value, how many copies of it the scope (delayed or due elements) holds, up to a limit, and
  removes them if asked (contains, containsAll, remove(Object), removeAll). Copies are found through VALUES, in
  offer order, so remove(Object) removes the earliest copy.

  KEYS[1] pending   ZSET   read; removed elements' members removed
  KEYS[2] inflight  ZSET   not used
  KEYS[3] dead      ZSET   not used
  KEYS[4] meta      HASH   read (the payloads are compared, not only digests); removed elements' values deleted
  KEYS[5] reason    HASH   not used
  KEYS[6] seq       STRING not used
  KEYS[7] lost      STRING incremented per element found with its META value evicted
  KEYS[8] counters  HASH   not used
  KEYS[9] signal    LIST   not used
  KEYS[10] order     ZSET   removed elements' entries removed
  KEYS[11] values   ZSET   ranged by each value's digest; removed and stale entries removed

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           scope: 'delayed' or 'due'
  ARGV[3]           the most copies of each value to count (0: all)
  ARGV[4]           remove: '1' to remove the copies counted, '0' to count them
  ARGV[5..]         the payloads

  Reply: {count...}: one per payload, in order (a payload given twice is looked up twice).
  Cost: O(copies log n) per payload.
]]
-- include: clock, face
local now = now_ms()
local scope = ARGV[2]
local limit = tonumber(ARGV[3])
local remove = ARGV[4] == '1'
local reply = {}
for i = 5, #ARGV do
    local p = ARGV[i]
    local found = copies(p, scope, now, limit)
    if remove then
        for _, m in ipairs(found) do
            drop(m, p)
        end
    end
    reply[#reply + 1] = #found
end
return reply
