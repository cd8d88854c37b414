--[[
  offer: adds m messages unless their ids are already known (m >= 1: a group commit of concurrent offers to this
  partition, or one partition's share of an offerAll batch). A message with a positive delay is due at the server's
  clock rounded up to the next millisecond plus the delay, so never early; with no delay it is due at once.
  Fresh flags say which ids need the dedup check: only the client's first attempt of ids its IdGenerator just made
  (a per-client random 128-bit prefix and a counter: unique) is sent as fresh; a retry, which may follow an attempt
  that ran, always checks. A second offer of the same id within one call is caught here.
  Each redis.call, and every string Lua builds or converts, costs per call or per message, so the commands are one
  per call whatever m, and a shared delay's due time is computed and turned into a string once.

  KEYS[1] pending   ZSET   the added messages' members <seq><id>, scored by due time
  KEYS[2] inflight  ZSET   not used
  KEYS[3] dead      ZSET   not used
  KEYS[4] meta      HASH   read for the dedup check; the added messages' values "D 0 <seq>:<payload>" written
  KEYS[5] reason    HASH   not used
  KEYS[6] seq       STRING incremented by m: the added messages' sequences
  KEYS[7] lost      STRING not used
  KEYS[8] signal    LIST   pushed to wake a poller (absent in a cluster's other partitions)

  ARGV[1]           maxAttempts (not used)
  ARGV[2]           delay ms of every message, or '' if each message carries its own
  ARGV[3]           fresh flags: '' (check every id), '*' (no id needs checking) or one character per message, '1'
                    for an id that needs no check
  ARGV[4..]         (id, payload) per message, or (id, payload, delay ms) when ARGV[2] is ''

  Reply: {added1, ..., addedm, clientMustSignal}: added is 1, or 0 for an id already known; clientMustSignal is 1
         when a message is due now or earlier than the previous head and SIGNAL is in another slot.
  Cost: O(m log n); commands, whatever m: TIME, HMGET of the ids that need the dedup check (none when all are
        fresh), INCRBY, one ZADD and one HSET for all added messages, at most one ZRANGE of the head.
]]
-- include: keys, clock, keep, wake
local floor, ceil = now_floor_ceil()
local common = ARGV[2]
local flags = ARGV[3]
local width = 2
if common == '' then
    width = 3
end
local m = (#ARGV - 3) / width
local check = {}   -- ids that need the dedup check, in order
local checked = {} -- j -> index in check
if flags ~= '*' then
    local all = flags == ''
    for j = 1, m do
        if all or string.byte(flags, j) ~= 49 then -- 49: '1'
            local n = #check + 1
            check[n] = ARGV[width * j + 4 - width]
            checked[j] = n
        end
    end
end
local known = {}
if #check > 0 then
    known = redis.call('HMGET', META, unpack(check))
end
local base = redis.call('INCRBY', SEQ, m) - m
local result = {}
local scored = {}
local states = {KEEP_FIELD, KEEP_VALUE}
local seen = {}
local waking = false
local head_read = false
local head_due = nil
local due, due_s
if width == 2 then
    due = due_at(tonumber(common), floor, ceil)
    due_s = string.format('%d', due)
end
local n = 0
for j = 1, m do
    local i = width * j + 4 - width
    local id = ARGV[i]
    local c = checked[j]
    if c and (known[c] or seen[id]) then
        result[j] = 0 -- known id (also a second offer of the same id in this call): deduplicated
    else
        if c then
            seen[id] = true
        end
        local seq = base + j
        if width == 3 then
            due = due_at(tonumber(ARGV[i + 2]), floor, ceil)
            due_s = due
        end
        if not waking then
            if due <= floor then
                waking = true
            else
                if not head_read then -- nothing of this call is in PENDING yet: this is the old head
                    local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
                    head_read = true
                    if head[2] then
                        head_due = tonumber(head[2])
                    end
                end
                waking = head_due == nil or due < head_due
            end
        end
        local hex = string.format('%016x', seq) -- the member's prefix and the META seq: formatted once
        scored[n + 1] = due_s
        scored[n + 2] = hex .. id -- (string.format's %s would cut an id or payload at a zero byte)
        states[n + 3] = id
        states[n + 4] = 'D 0 ' .. hex .. ':' .. ARGV[i + 1]
        n = n + 2
        result[j] = 1
    end
end
if n > 0 then
    redis.call('ZADD', PENDING, unpack(scored))
    redis.call('HSET', META, unpack(states)) -- with KEEP_FIELD, see keep.lua
end
if waking then
    result[m + 1] = wake()
else
    result[m + 1] = 0
end
return result
