--[[
  browse: one page of a partition's messages in one state, by rank, for operators' tools. Read-only: it sweeps
  nothing, so a delivery whose visibility timeout ran out shows as in flight until a consumer's script returns it.
  ZRANGE by rank costs O(log n + count): a page deep in a large backlog costs no more than the first.

  KEYS[1] pending   ZSET   read: ready (due by now) and delayed messages
  KEYS[2] inflight  ZSET   read
  KEYS[3] dead      ZSET   read
  KEYS[4] meta      HASH   read: each listed message's state
  KEYS[5] reason    HASH   read: each listed dead letter's reason

  ARGV[1]           the state: ready, delayed, inflight or dead
  ARGV[2]           offset: how many messages of the state to skip, in score order
  ARGV[3]           count: at most this many to list

  Reply: {total, nowMs, id1, scoreMs1, meta1, reason1, id2, ...}: total is how many messages the partition has in
         the state; four elements per listed message, in score order: its id, its score (due time, visibility
         deadline or time of death, server ms), its META value (see meta.lua; false if evicted or not this
         scheduling's) and, for a dead letter, its reason (else '').
  Ready messages are listed from READY first (ready.lua), then from the named groups' ready sets (groups.lua), group
  by group in turn order (at most 1,000 groups from each of RING, GWAIT and GFLIGHT: group_names.lua), then from
  PENDING. Delayed messages in the cold store (cold.lua) are listed after those in PENDING, chunk by chunk (by their
  earliest due time) and in offer order within a chunk; reaching a page deep among them costs one LLEN and one HGET
  (its tombstones) per chunk skipped.
  Cost: O(log n + count), plus O(offset / CHUNK_CAP) for a page among the cold store's messages.
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local DEAD = KEYS[3]
local META = KEYS[4]
local REASON = KEYS[5]
-- include: clock, member, cold, cold_keys, ready_keys, group_keys, group_names
local now = now_ms()
local state = ARGV[1]
local offset = tonumber(ARGV[2])
local count = tonumber(ARGV[3])
local key = PENDING
local first = 0
local total
local GROUPS_LISTED = 1000
local hot_delayed = nil -- for delayed: how many of them are in PENDING, listed before the cold store's
local in_ready = 0 -- for ready: how many of them are in READY (ready.lua), listed first, in delivery order
local in_groups = 0 -- then those in the named groups' ready sets (groups.lua), group by group
if state == 'ready' then
    in_ready = redis.call('ZCOUNT', READY, '-inf', '(+inf')
    in_groups = tonumber(redis.call('GET', GCOUNT) or '0')
    total = in_ready + in_groups + redis.call('ZCOUNT', PENDING, '-inf', now)
elseif state == 'delayed' then
    first = redis.call('ZCOUNT', PENDING, '-inf', now)
    hot_delayed = redis.call('ZCOUNT', PENDING, string.format('(%d', now), '(+inf')
    total = hot_delayed + cold_store().load()
elseif state == 'inflight' then
    key = INFLIGHT
    total = redis.call('ZCOUNT', INFLIGHT, '-inf', '(+inf')
elseif state == 'dead' then
    key = DEAD
    total = redis.call('ZCARD', DEAD)
else
    return redis.error_reply('unknown state ' .. state)
end
local result = {total, now}
local last = math.min(offset + count, total) - 1
if last < offset then
    return result
end
-- Lists members (with scores) of one sorted set; a READY score (span given) is its priority's spans plus the due
-- time.
local function list(members, span)
    for i = 1, #members, 2 do
        local m = members[i]
        local id = id_of(m)
        local v = redis.call('HGET', META, id)
        local seq = v and string.match(v, '^%a %d+ (%x+)')
        if v and not (seq and owns(m, tonumber(seq, 16))) then
            v = false
        end
        result[#result + 1] = id
        local score = tonumber(members[i + 1])
        result[#result + 1] = span and score % span or score
        result[#result + 1] = v or false
        result[#result + 1] = key == DEAD and (redis.call('HGET', REASON, id) or '') or ''
    end
end
if offset < in_ready then
    list(redis.call('ZRANGE', READY, offset, math.min(last, in_ready - 1), 'WITHSCORES'), PRIORITY_SPAN)
end
if in_groups > 0 and last >= in_ready and offset < in_ready + in_groups then
    -- Group by group (group_names.lua: at most GROUPS_LISTED of each of its sources), skipping whole sets by size.
    local skip = math.max(0, offset - in_ready)
    local want = math.min(last, in_ready + in_groups - 1) - math.max(offset, in_ready) + 1
    for _, g in ipairs(group_names(GROUPS_LISTED)) do
        if want <= 0 then
            break
        end
        local set = GROUP_PREFIX .. g
        local n = redis.call('ZCARD', set)
        if skip >= n then
            skip = skip - n
        else
            local got = redis.call('ZRANGE', set, skip, skip + want - 1, 'WITHSCORES')
            list(got, PRIORITY_SPAN)
            want = want - #got / 2
            skip = 0
        end
    end
end
in_ready = in_ready + in_groups
if last >= in_ready and (hot_delayed == nil or offset < hot_delayed) then
    local from = math.max(0, offset - in_ready)
    list(redis.call('ZRANGE', key, first + from, first + math.min(last - in_ready, (hot_delayed or last + 1) - 1),
        'WITHSCORES'), nil)
end
if hot_delayed and last >= hot_delayed then
    -- The cold store's messages follow, chunk by chunk (by their earliest due time, entries in offer order): skip
    -- whole chunks by their length, then list from the chunk the page starts in.
    local skip = math.max(0, offset - hot_delayed)
    local want = last - math.max(offset, hot_delayed) + 1
    local start = 0
    while want > 0 do
        local c = redis.call('ZRANGE', CHUNKS, start, start + 63)
        if not c[1] then
            break
        end
        for j = 1, #c do
            if want <= 0 then
                break
            end
            local live = cold.live(c[j])
            if skip >= live then
                skip = skip - live
            else
                for at, e in ipairs(redis.call('LRANGE', cold.chunk_key(c[j]), 0, -1)) do
                    if want > 0 and e ~= '' then -- '' is a removed entry's tombstone (cold.lua)
                        if skip > 0 then
                            skip = skip - 1
                        else
                            local value, due = cold.meta(c[j], e)
                            result[#result + 1] = select(4, cold.parse(e, c[j], at - 1))
                            result[#result + 1] = due
                            result[#result + 1] = value
                            result[#result + 1] = ''
                            want = want - 1
                        end
                    end
                end
                skip = 0
            end
        end
        start = start + 64
    end
end
return result
