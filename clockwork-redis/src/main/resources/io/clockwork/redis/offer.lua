-- offer: ARGV maxAttempts, then (id, payload, delay ms) for each of m messages (m >= 1: a group commit of concurrent
-- offers to this partition, or one partition's share of an offerAll batch). Returns {added 0/1 per message...,
-- client must signal 0/1}. O(m log n).
-- A message with a positive delay is due at the server's clock rounded up to the next millisecond plus the delay,
-- so never early; with no delay it is due at once. Commands per call, whatever m: TIME, HMGET (which ids are
-- known: deduplication), INCRBY, then one ZADD and two HSETs for all added messages, at most one ZRANGE. (One HSETNX
-- per message did the dedup check and the state write in one command, but each redis.call costs about 1 us.)
local floor, ceil = now_floor_ceil()
local m = (#ARGV - 1) / 3
local ids = {}
for j = 1, m do
    ids[j] = ARGV[3 * j - 1]
end
local known = redis.call('HMGET', META, unpack(ids))
local base = redis.call('INCRBY', SEQ, m) - m
local result = {}
local scored = {}
local payloads = {KEEP_FIELD, KEEP_VALUE}
local states = {KEEP_FIELD, KEEP_VALUE}
local seen = {}
local wake = false
local head_read = false
local head_due = nil
for j = 1, m do
    local i = 3 * j - 1
    local id = ids[j]
    if known[j] or seen[id] then
        result[j] = 0 -- known id (also a second offer of the same id in this call): deduplicated
    else
        seen[id] = true
        local seq = base + j
        local due = due_at(tonumber(ARGV[i + 2]), floor, ceil)
        if not wake then
            if due <= floor then
                wake = true
            else
                if not head_read then -- nothing of this call is in PENDING yet: this is the old head
                    local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
                    head_read = true
                    if head[2] then
                        head_due = tonumber(head[2])
                    end
                end
                wake = head_due == nil or due < head_due
            end
        end
        local n = #scored
        scored[n + 1] = due
        scored[n + 2] = member(seq, id)
        payloads[n + 3] = id
        payloads[n + 4] = ARGV[i + 1]
        states[n + 3] = id
        states[n + 4] = string.format('D 0 %d', seq) -- meta_value('D', 0, seq), one format argument fewer
        result[j] = 1
    end
end
if #scored > 0 then
    redis.call('ZADD', PENDING, unpack(scored))
    redis.call('HSET', PAYLOAD, unpack(payloads)) -- with KEEP_FIELD, see common.lua
    redis.call('HSET', META, unpack(states))
end
if wake then
    result[m + 1] = signal()
else
    result[m + 1] = 0
end
return result
