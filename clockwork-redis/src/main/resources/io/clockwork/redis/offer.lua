--[[
  offer: offers m messages (m >= 1: a group commit of concurrent offers to this partition, or one partition's share of
  an offerAll batch), each with its conflict policy for an id already known: keep (deduplication: nothing changes),
  replace (a scheduled message takes the new tail and due time, keeping its attempts and last error) or extend (a
  scheduled message takes the new due time, keeping its tail). An unknown id is added whatever the policy; replace and
  extend leave a message in flight or dead alone. A replaced or extended message is filed again under a new sequence,
  like a reschedule, so an earlier delivery's receipt no longer holds it. A message with a positive delay is due at the
  server's clock rounded up to the next millisecond plus the delay, so never early; with no delay it is due at once; a
  message due at once that carries a priority (whose partition the client marked ordered before offering it) goes to
  READY, scored by priority (ready.lua), not to PENDING, and one due at once that carries a group (whose partition the
  client marked grouped) to its group's ready set (groups.lua). A message due at least compactAfter ahead (ARGV[1]) is filed in
  the cold store (cold.lua) instead of PENDING and META; an id the check does not find in META is looked up there too.
  Flags say per message what to check: only the client's first attempt of ids its IdGenerator just made (a per-client
  random 128-bit prefix and a counter: unique) is sent as fresh, without a dedup read; a retry, which may follow an
  attempt that ran, always checks. A fresh message filed in the cold store is placed (cold.lua): no index entry, its
  place in the reply, and while the queue retries lost replies (the fifth word of ARGV[1] is the window in ms) the
  call's places are recorded in the store's placed stream, where a retry that finds its id nowhere else finds what the
  first attempt placed (kept, with its place). A second offer of the same id within one call meets the first as a later
  call would (keep: kept; replace or extend: the queued messages are written first, then it is read again). Each
  redis.call, and every string Lua builds or converts, costs per call or per message, so the commands are one per call
  whatever m (plus O(1) per replaced or extended message), and a shared delay's due time is computed and turned into a
  string once.

  KEYS[1] pending   ZSET   the added messages' members <seq><id>, scored by due time; a replaced or extended one's
                           member is moved
  KEYS[2] meta      HASH   read for the conflict check; values "D <attempts> <seq><tail>" written (see meta.lua)
  KEYS[3] seq       STRING incremented by m: the stored messages' sequences
  KEYS[4] lost      STRING incremented when a lookup in the cold store meets an index entry whose chunk was evicted
  KEYS[5] counters  HASH   offered incremented by the messages stored (added, replaced or extended)
  KEYS[6] signal    LIST   pushed to wake a poller (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms> <placed window
                    ms>": compactAfter and the placed window
  ARGV[2]           delay ms of every message, or '' if each message carries its own
  ARGV[3]           flags: '' (every id is checked, policy keep), '*' (no id needs checking; it may be followed by
                    "<first counter>,<rises>", the fresh ids' counters, the first and each later one's rise over the
                    one before as a base-36 digit, for the placed stream) or one character per message: '1' a fresh
                    id (no check), '0' keep, 'r' replace, 'e' extend
  ARGV[4..]         (id, tail) per message, or (id, tail, delay ms) when ARGV[2] is ''; the tail is
                    "[#<n>#<headers>]:<payload>" (see meta.lua)
  ARGV[4]           so in a call of one message with ARGV[2] its delay: its id
  ARGV[5]           and its tail

  Reply: {code1, ..., codem, clientMustSignal}: code is 0 kept (the id is known, policy keep), 1 added, 2 replaced,
         3 extended, 4 in flight and 5 dead (replace or extend found it so; nothing changed); clientMustSignal is 1
         when a message is due now or earlier than the heads of PENDING and of the cold store, and SIGNAL is in
         another slot; then, if any message is placed, place1, ..., placem: a placed message's place
         "<chunk name>.<position hex>" (its id is then "<id>.<place>"), '' for the others.
  Cost: O(m log n), plus O(CHUNK_CAP) per checked id found in the cold store; commands, whatever m: TIME, HMGET of the
        ids that need a check (none when all are fresh), INCRBY, one ZADD (two when some go to READY), one HSET and
        one HINCRBY for all messages stored in PENDING or READY and META, at most one read each of the heads of
        PENDING and of the cold store; for the cold store one HMGET of its state, an HSET of an index shard per
        message not placed, per window an HGET, a ZSCORE and an LLEN (or an HINCRBY and an HSET for a new chunk), per
        chunk an RPUSH and a ZADD when its earliest due time moves, one HINCRBY (two when ids are indexed), with a
        placed window an XADD and a PEXPIRE; plus a ZREM per replaced or extended message, an index HGET and a chunk
        LINDEX per checked id not in META (a chunk LINDEX alone for a placed id), an XRANGE of the placed stream per
        checked client part found nowhere else (a retry), and an HGET and a flush of the queued writes per repeated id
        that replaces or extends within the call.
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local SEQ = KEYS[3]
local LOST = KEYS[4]
local COUNTERS = KEYS[5]
local SIGNAL = KEYS[6]
-- include: clock, keep, meta, wake, counters, cold, cold_keys, lost, unschedule, priority, ready_keys, group_tail, groups, group_keys
local floor, ceil = now_floor_ceil()

-- Files messages due now with a priority and without a group, {score, member, ...}, in READY (ready.lua); in a
-- grouped partition as the unnamed group's (groups.lua), so that it takes its turn.
local function ready_now(scored)
    if redis.call('EXISTS', GROUPED) == 1 then
        group_add({[''] = scored})
    else
        redis.call('ZADD', READY, '+inf', KEEP_MEMBER, unpack(scored))
    end
end

-- The due time of PENDING's first message, or false if none.
local function pending_head()
    local head = redis.call('ZRANGEBYSCORE', PENDING, '-inf', '(+inf', 'WITHSCORES', 'LIMIT', '0', '1')
    return head[2] and tonumber(head[2]) or false
end

-- The usual call, fresh messages (no check) with one delay, filed in PENDING, goes straight through: the general
-- path's tables and closures below cost about a third of a one-message call's script time. Same commands, same reply.
if string.byte(ARGV[3], 1) == 42 and ARGV[2] ~= '' then -- '*'
    local due = due_at(tonumber(ARGV[2]), floor, ceil)
    local after = compact_after()
    local m = (#ARGV - 3) / 2
    local fresh = true
    for j = 1, m do
        if goes_cold(ARGV[2 * j + 2], due, floor, after) then
            fresh = false
            break
        end
    end
    if fresh then
        local base = redis.call('INCRBY', SEQ, m == 1 and '1' or m) - m
        local waking = due <= floor
        if not waking then
            local head = pending_head()
            if not head or due < head then
                head = cold_head()
                waking = not head or due < head
            end
        end
        local due_s = string.format('%d', due)
        if m == 1 then -- the usual call: no tables to build and unpack
            local hex = string.format('%016x', base + 1)
            local keep = keeps(base, base + 1)
            local g, priority = nil, 0
            if due <= floor and string.byte(ARGV[5], 1) == 35 then -- due now, with headers
                g, priority = tail_group(ARGV[5], 1)
            end
            if g then -- due now with a group: straight into its ready set (groups.lua)
                if group_file(g, {string.format('%d', ready_score(priority, due)), hex .. ARGV[4]}) > 0 then
                    redis.call('INCRBY', GCOUNT, '1')
                end
            elseif priority ~= 0 then -- due now with a priority: straight into READY (ready.lua)
                ready_now({string.format('%d', ready_score(priority, due)), hex .. ARGV[4]})
            elseif keep then
                redis.call('ZADD', PENDING, '+inf', KEEP_MEMBER, due_s, hex .. ARGV[4])
            else
                redis.call('ZADD', PENDING, due_s, hex .. ARGV[4])
            end
            if keep then
                redis.call('HSET', META, KEEP_FIELD, KEEP_VALUE, ARGV[4], 'D 0 ' .. hex .. ARGV[5])
            else
                redis.call('HSET', META, ARGV[4], 'D 0 ' .. hex .. ARGV[5])
            end
            redis.call('HINCRBY', COUNTERS, 'offered', '1')
            return {1, waking and wake() or 0}
        end
        local keep = keeps(base, base + m)
        local scored = keep and {'+inf', KEEP_MEMBER} or {}
        local ready = {}
        local states = keep and {KEEP_FIELD, KEEP_VALUE} or {}
        local result = {}
        local grouped = {}
        for j = 1, m do
            local id = ARGV[2 * j + 2]
            local tail = ARGV[2 * j + 3]
            local hex = string.format('%016x', base + j)
            local g, priority = nil, 0
            if due <= floor and string.byte(tail, 1) == 35 then -- due now, with headers
                g, priority = tail_group(tail, 1)
            end
            if g then
                local t = grouped[g] or {}
                grouped[g] = t
                t[#t + 1] = string.format('%d', ready_score(priority, due))
                t[#t + 1] = hex .. id
            elseif priority ~= 0 then
                ready[#ready + 1] = string.format('%d', ready_score(priority, due))
                ready[#ready + 1] = hex .. id
            else
                scored[#scored + 1] = due_s
                scored[#scored + 1] = hex .. id
            end
            states[#states + 1] = id
            states[#states + 1] = 'D 0 ' .. hex .. tail
            result[j] = 1
        end
        if #scored > (keep and 2 or 0) then
            redis.call('ZADD', PENDING, unpack(scored))
        end
        if #ready > 0 then
            ready_now(ready)
        end
        group_add(grouped)
        redis.call('HSET', META, unpack(states))
        count_events('offered', m)
        result[m + 1] = waking and wake() or 0
        return result
    end
end

local common = ARGV[2]
local flags = ARGV[3]
local counters = '' -- after '*': the client's description of the call's counters, for the placed stream
if string.byte(flags, 1) == 42 then -- '*'
    counters = string.sub(flags, 2)
    flags = '*'
end
local after = compact_after()
local window = placed_window()
local places = {}     -- j -> place of a placed (or, on a retry, recorded) message
local any_place = false
-- With the client's description of the call's counters (ARGV[3] "*<first counter>,<rises>", every message fresh and
-- one delay), the places are kept by message number: runs "<first message number>,<chunk name>,<first position
-- hex>,<count>" of messages placed one after another, a few compares per message.
local by_number = {}

-- The places this call gives, for a retry, per client prefix as runs: messages placed one after another in a chunk
-- whose counters rise by 1 to 35 make one run "<first counter>,<each later counter's rise, a base-36 digit>,<chunk
-- name>,<first position hex>", so a batch costs its stream entry a few bytes per message.
local DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz'
local DIGIT = nil -- rise -> its base-36 digit, built by the first record() of a call
local runs = {} -- client prefix -> {runs}; a run is {first counter, rises, chunk name, first position, last counter
                -- value, last position}
local last_prefix, last_runs -- the prefix recorded last and its runs: a call's fresh ids share one client's prefix
local function record(id, name, pos)
    if DIGIT == nil then
        DIGIT = {}
        for d = 1, 35 do
            DIGIT[d] = string.sub(DIGITS, d + 1, d + 1)
        end
    end
    local list = last_runs
    if list == nil or string.sub(id, 1, 23) ~= last_prefix then
        last_prefix = string.sub(id, 1, 23)
        list = runs[last_prefix]
        if list == nil then
            list = {}
            runs[last_prefix] = list
        end
        last_runs = list
    end
    local value = #id <= 33 and tonumber(string.sub(id, 24), 36) or nil -- counters of at most 10 digits: exact
    local last = list[#list]
    if last and value and last[5] and last[3] == name and last[6] + 1 == pos and value > last[5]
            and value - last[5] < 36 then
        local rises = last[2]
        rises[#rises + 1] = DIGIT[value - last[5]]
        last[5], last[6] = value, pos
    else
        list[#list + 1] = {string.sub(id, 24), {}, name, pos, value, pos}
    end
end

-- Where a retry's earlier attempt placed the message with client part id, from the placed stream, or nil.
local function recorded_place(id)
    -- The number (from 1) of the counter `counter` (its value `value`, or nil if too long to read exactly) among a
    -- run's counters: `first`, then each later one `rises` (base-36 digits) above the one before; nil if not among
    -- them (defined here, so that only a retry's lookup creates it).
    local function number_in(first, rises, counter, value)
        if first == counter then
            return 1
        end
        local v = value and #first <= 10 and tonumber(first, 36)
        if v and value > v then
            for i = 1, #rises do
                v = v + string.find(DIGITS, string.sub(rises, i, i), 1, true) - 1
                if v == value then
                    return i + 1
                elseif v > value then
                    return nil
                end
            end
        end
        return nil
    end
    local prefix, counter = string.sub(id, 1, 23), string.sub(id, 24)
    local value = #counter <= 10 and tonumber(counter, 36) or nil
    for _, entry in ipairs(redis.call('XRANGE', PLACED, '-', '+')) do
        local f = entry[2] -- k, prefix, r, runs; or k, prefix, c, counters, p, places by message number
        if f[2] == prefix and f[3] == 'c' then
            local first, rises = string.match(f[4], '^([^,]+),(.*)$')
            local number = first and number_in(first, rises, counter, value)
            if number then
                for j, name, pos, count in string.gmatch(f[6], '(%d+),([^,;]+),(%x+),(%d+)') do
                    j, count = tonumber(j), tonumber(count)
                    if number >= j and number < j + count then
                        return name .. '.' .. string.format('%x', tonumber(pos, 16) + number - j)
                    end
                end
            end
        elseif f[2] == prefix then
            for first, rises, name, pos in string.gmatch(f[4], '([^,;]+),([^,;]*),([^,;]+),(%x+)') do
                local number = number_in(first, rises, counter, value)
                if number then
                    return name .. '.' .. string.format('%x', tonumber(pos, 16) + number - 1)
                end
            end
        end
    end
    return nil
end
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
local base = redis.call('INCRBY', SEQ, m == 1 and '1' or m) - m -- a number argument costs a float format
local result = {}
local scored = {'+inf', KEEP_MEMBER}
local ready = {} -- due now with a priority: straight into READY (ready.lua)
local grouped = {} -- due now with a group: straight into its ready set (groups.lua), by group
local states = {KEEP_FIELD, KEEP_VALUE}
local seen = {}
local waking = false
local due, due_s
if width == 2 then
    due = due_at(tonumber(common), floor, ceil)
    due_s = string.format('%d', due)
end
local n = 0
local stored = 0

-- Writes the queued messages, so that a later message of this call can read and move them.
local function flush()
    if n > 0 then
        if #scored > 2 then
            redis.call('ZADD', PENDING, unpack(scored))
        end
        if #ready > 0 then
            ready_now(ready)
        end
        group_add(grouped)
        redis.call('HSET', META, unpack(states)) -- with KEEP_FIELD, see keep.lua
        scored = {'+inf', KEEP_MEMBER}
        ready = {}
        grouped = {}
        states = {KEEP_FIELD, KEEP_VALUE}
        n = 0
    end
    if cold then
        cold.flush()
    end
end

-- Whether a message due at `due` is earlier than every head a blocked poller may be waiting for: the first of
-- PENDING and of the cold store's chunks, each read at most once, before this call stores anything (a later head
-- never wakes anyone sooner). The head of the message's own layout is read first: a message no earlier than it
-- needs no other read.
local heads = {} -- [1] PENDING's, [2] the cold store's: false once read and empty
local function read_head(which)
    if heads[which] == nil then
        if which == 1 then
            heads[1] = pending_head()
        else
            heads[2] = cold_head() or false
        end
    end
    return heads[which]
end
local function earlier_than_heads(due, compact)
    local first = compact and 2 or 1
    local h = read_head(first)
    if h and due >= h then
        return false
    end
    h = read_head(3 - first)
    return not h or due < h
end

local uniform = 0 -- the policy of every message when flags are '' (48: '0') or '*' (49: '1')
if flags == '' then
    uniform = 48
elseif flags == '*' then
    uniform = 49
end
for j = 1, m do
    local i = width * j + 4 - width
    local id = ARGV[i]
    local tail = ARGV[i + 1]
    local attempts = 0
    local code = 1
    local in_meta = false -- a replaced or extended message whose META value must go if it moves to the cold store
    local c = checked[j]
    if c then
        local policy = uniform
        if policy == 0 then
            policy = string.byte(flags, j)
        end
        local moves = policy == 114 or policy == 101 -- 'r', 'e'
        local v = known[c]
        if seen[id] then
            if moves then
                flush()
                v = redis.call('HGET', META, id)
            else
                v = true
            end
        end
        local found = nil
        if not v then
            found = cold_store(lose).find(id)
            if not found and not moves and window > 0 and is_client_part(id) then
                local place = recorded_place(id) -- a retry whose first attempt placed the message
                if place then
                    places[j] = place
                    any_place = true
                    v = true
                end
            end
        end
        seen[id] = true
        if v or found then
            if not moves then
                code = 0 -- known id (also a second offer of the same id in this call): kept
            else
                local old
                if found then
                    if cold.added() > 0 then
                        flush() -- remove needs every entry of the chunk stored and read
                        found = cold.find(id)
                    end
                    cold.remove(found, id)
                    local _, _, a, _, t = cold.parse(found[2])
                    attempts, old = a, t
                else
                    local state, a, hex, at = string.match(v, '^(%a) (%d+) (%x+)()')
                    if state ~= 'D' then
                        code = 5
                    elseif unschedule(hex .. id, string.sub(v, at)) == 0 then
                        code = 4 -- live, not scheduled: in flight
                    else
                        attempts, old = a, string.sub(v, at)
                        in_meta = true
                    end
                end
                if old then
                    if policy == 101 then
                        tail = old
                        code = 3
                    else
                        local err = split_error(old)
                        if err then
                            tail = with_error(err, tail)
                        end
                        code = 2
                    end
                end
            end
        end
    end
    if code > 0 and code < 4 then
        if width == 3 then
            due = due_at(tonumber(ARGV[i + 2]), floor, ceil)
            due_s = due
        end
        local compact = goes_cold(id, due, floor, after)
        if compact then
            if in_meta then
                redis.call('HDEL', META, id)
            end
            local place, name, pos = cold_store(lose).add(id, due, base + j, attempts, tail,
                c == nil and is_client_part(id))
            if place then
                places[j] = place
                any_place = true
                if window > 0 then
                    if counters ~= '' and width == 2 then
                        local last = by_number[#by_number]
                        if last and last[2] == name and last[1] + last[4] == j and last[3] + last[4] == pos then
                            last[4] = last[4] + 1
                        else
                            by_number[#by_number + 1] = {j, name, pos, 1}
                            by_number.prefix = by_number.prefix or string.sub(id, 1, 23)
                        end
                    else
                        record(id, name, pos)
                    end
                end
            end
        else
            local hex = string.format('%016x', base + j) -- the member's prefix and the META seq: formatted once
            local g, priority = nil, 0
            if due <= floor and string.byte(tail, 1) ~= 58 then -- 58: ':'
                g, priority = tail_group(tail, 1)
            end
            if g then
                local t = grouped[g] or {}
                grouped[g] = t
                t[#t + 1] = string.format('%d', ready_score(priority, due))
                t[#t + 1] = hex .. id
            elseif priority ~= 0 then
                ready[#ready + 1] = string.format('%d', ready_score(priority, due))
                ready[#ready + 1] = hex .. id
            else
                scored[#scored + 1] = due_s
                scored[#scored + 1] = hex .. id -- (string.format's %s would cut an id or payload at a zero byte)
            end
            states[n + 3] = id
            states[n + 4] = (attempts == 0 and 'D 0 ' or 'D ' .. attempts .. ' ') .. hex .. tail
            n = n + 2
        end
        if not waking then
            waking = due <= floor or earlier_than_heads(due, compact)
        end
        stored = stored + 1
    end
    result[j] = code
end
flush()
count_events('offered', stored)
if #by_number > 0 then
    local text = {}
    for i, r in ipairs(by_number) do
        text[i] = r[1] .. ',' .. r[2] .. ',' .. string.format('%x', r[3]) .. ',' .. r[4]
    end
    redis.call('XADD', PLACED, 'MINID', '~', string.format('%d', math.max(0, floor - window)), '*', 'k',
        by_number.prefix, 'c', counters, 'p', table.concat(text, ';'))
    redis.call('PEXPIRE', PLACED, window)
end
for prefix, list in pairs(runs) do
    local text = {}
    for i, r in ipairs(list) do
        text[i] = r[1] .. ',' .. table.concat(r[2]) .. ',' .. r[3] .. ',' .. string.format('%x', r[4])
    end
    redis.call('XADD', PLACED, 'MINID', '~', string.format('%d', math.max(0, floor - window)), '*', 'k', prefix,
        'r', table.concat(text, ';'))
    redis.call('PEXPIRE', PLACED, window)
end
if waking then
    result[m + 1] = wake()
else
    result[m + 1] = 0
end
if any_place then
    for j = 1, m do
        result[m + 1 + j] = places[j] or ''
    end
end
return result
