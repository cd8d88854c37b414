-- Clockwork RedisDelayedQueue: helpers prepended to every operation's script (see RedisDelayedQueue's design note
-- and docs/redis-queue.md). Every script gets the same keys, all in one partition's hash tag except SIGNAL:
local PENDING = KEYS[1]   -- ZSET  member <seq:16 hex><id>, score due time (server ms): delayed and ready messages
local INFLIGHT = KEYS[2]  -- ZSET  member <seq:16 hex><id>, score visibility deadline (server ms)
local DEAD = KEYS[3]      -- ZSET  member <seq:16 hex><id>, score time of death (server ms)
local PAYLOAD = KEYS[4]   -- HASH  id -> encoded value: only for messages stored before payloads moved into META
local META = KEYS[5]      -- HASH  id -> "<state> <attempts> <seq>:<payload>", see parse_meta
local REASON = KEYS[6]    -- HASH  id -> why it died
local SEQ = KEYS[7]       -- STRING per-partition counter: FIFO tie-break within a due time, and delivery receipts
local LOST = KEYS[8]      -- STRING messages found with part of their state evicted by Redis, and dropped
local SIGNAL = KEYS[9]    -- LIST  wake-up for blocked pollers; nil when it lives in another cluster slot
local MAX_ATTEMPTS = tonumber(ARGV[1])

-- Replicate effects, not the script, so that writes may follow TIME: the default since Redis 5, a no-op since 7.
if redis.replicate_commands then
    redis.replicate_commands()
end

-- The server's clock, in whole milliseconds. Scripts replicate their effects (Redis 6.2+), so TIME is allowed.
local function now_ms()
    local t = redis.call('TIME')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The server's clock floored and rounded up to whole milliseconds: {floor, ceil}. A due time counts a delay from
-- the ceiling, so that a message is never due (by the floored clock pollers read) before offer time + delay.
local function now_floor_ceil()
    local t = redis.call('TIME')
    local us = tonumber(t[2])
    local floor = tonumber(t[1]) * 1000 + math.floor(us / 1000)
    if us % 1000 > 0 then
        return floor, floor + 1
    end
    return floor, floor
end

-- When a message delayed by delay_ms (0: due at once) falls due, given the clock's floor and ceiling.
local function due_at(delay_ms, floor, ceil)
    if delay_ms <= 0 then
        return floor
    end
    return ceil + delay_ms
end

-- Members sort by score, then bytewise: a fixed-width sequence prefix keeps equal due times in offer order.
local function member(seq, id)
    return string.format('%016x', seq) .. id
end

local function id_of(m)
    return string.sub(m, 17)
end

-- A field no message can have (ids are never empty) whose value is longer than hash-max-listpack-value (64 by
-- default): written along with other fields of META, it keeps the hash in hashtable encoding, so small queues get
-- O(1) field access instead of listpack scans, and the hash is not deleted and recreated each time the queue runs
-- empty. (PAYLOAD kept one too while payloads lived there.)
local KEEP_FIELD = ''
local KEEP_VALUE = 'clockwork: keeps this hash in hashtable encoding (longer than hash-max-listpack-value)'

-- META values are "<state> <attempts> <seq as 16 hex digits>:<payload>": state D (live: scheduled, or in flight
-- while its member <seq><id> is in INFLIGHT) or X (dead); attempts counts the deliveries before this scheduling, so
-- a delivery in flight is attempt attempts + 1; seq is the member's prefix (so the member is seq .. id, no
-- formatting) and the delivery's receipt. A poll changes no META value: only where the member is changes.
-- Values written before payloads moved into META read "<state> <attempts> <seq in decimal>" with the payload in
-- PAYLOAD, and a third state, F (in flight, attempts counting this delivery). They are read the same way
-- (legacy = true) and rewritten in the new form, their PAYLOAD field deleted, whenever a script writes their state.
-- Returns state, attempts, seq (a number), tail (':' .. payload), legacy; nil if the value is missing.
local function parse_meta(id, v)
    if not v then
        return nil
    end
    local state, attempts, seq, at = string.match(v, '^(%a) (%d+) (%x+)()')
    if string.byte(v, at) == 58 then -- ':'
        return state, tonumber(attempts), tonumber(seq, 16), string.sub(v, at), false
    end
    return state, tonumber(attempts), tonumber(seq), ':' .. (redis.call('HGET', PAYLOAD, id) or ''), true
end

local function get_meta(id)
    return parse_meta(id, redis.call('HGET', META, id))
end

-- A message whose state is half gone: its member is in a sorted set but its META value is missing, or belongs to a
-- later scheduling of the same id (META was evicted and the id offered again). Redis evicts whole keys under
-- memory pressure when maxmemory-policy is not noeviction (the client refuses such a server unless told to accept
-- it). The caller has already removed the member; this counts the message in LOST, and in lost_now for the reply,
-- so that it is reported instead of wedging the queue or vanishing without a word.
local lost_now = 0
local function lose()
    lost_now = lost_now + 1
    redis.call('INCR', LOST)
end

-- Whether the META value parsed from v belongs to member m (the same scheduling: m's 16-hex prefix is its seq).
local function owns(m, seq)
    return seq ~= nil and tonumber(string.sub(m, 1, 16), 16) == seq
end

-- The attempt number of the delivery in flight, from a META state and attempts.
local function in_flight_attempt(state, attempts)
    if state == 'F' then
        return attempts -- legacy: counted when delivered
    end
    return attempts + 1
end

-- Writes META (and returns the member for seq); a legacy message's payload moves out of PAYLOAD with it.
local function set_meta(id, state, attempts, seq, tail, legacy)
    local hex = string.format('%016x', seq)
    redis.call('HSET', META, id, state .. ' ' .. attempts .. ' ' .. hex .. tail)
    if legacy then
        redis.call('HDEL', PAYLOAD, id)
    end
    return hex .. id
end

-- Deletes a message's state (and a legacy message's payload).
local function forget(id, legacy)
    redis.call('HDEL', META, id)
    if legacy then
        redis.call('HDEL', PAYLOAD, id)
    end
end

-- Wakes one blocked poller. Returns 1 when the signal key is out of this slot and the client must push it.
local function signal()
    if SIGNAL then
        -- At most one token: trim only when one was already there (usually nobody took it yet).
        if redis.call('LPUSH', SIGNAL, '1') > 1 then
            redis.call('LTRIM', SIGNAL, 0, 0)
        end
        return 0
    end
    return 1
end

-- Puts a message in the schedule under a new sequence; returns true if it is due now or earlier than the previous
-- head, i.e. if a blocked poller may be waiting too long.
local function schedule(id, attempts, due, now, tail, legacy)
    local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
    local seq = redis.call('INCR', SEQ)
    redis.call('ZADD', PENDING, due, set_meta(id, 'D', attempts, seq, tail, legacy))
    return due <= now or head[2] == nil or due < tonumber(head[2])
end

local function bury(id, attempts, reason, now, tail, legacy)
    local seq = redis.call('INCR', SEQ)
    redis.call('ZADD', DEAD, now, set_meta(id, 'X', attempts, seq, tail, legacy))
    redis.call('HSET', REASON, id, reason)
end

local function max_attempts_reason()
    return string.format('maxAttempts (%d) reached', MAX_ATTEMPTS)
end

-- Returns in-flight messages whose visibility deadline passed to the schedule (due at that deadline), or buries
-- them once they have had MAX_ATTEMPTS deliveries. At most `limit` per call, so a call stays O(limit log n).
local function sweep(now, limit)
    local expired = redis.call('ZRANGEBYSCORE', INFLIGHT, '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
    for i = 1, #expired, 2 do
        local m = expired[i]
        local id = id_of(m)
        redis.call('ZREM', INFLIGHT, m)
        local state, attempts, seq, tail, legacy = get_meta(id)
        if (state ~= 'D' and state ~= 'F') or not owns(m, seq) then
            lose()
        else
            attempts = in_flight_attempt(state, attempts)
            if attempts >= MAX_ATTEMPTS then
                bury(id, attempts, max_attempts_reason(), now, tail, legacy)
            else
                schedule(id, attempts, tonumber(expired[i + 1]), now, tail, legacy)
            end
        end
    end
end

-- Milliseconds until the partition's next event (a due message or an expiring delivery), or -1 if none.
local function next_event_in(now)
    local result = -1
    local p = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
    if p[2] then
        result = math.max(0, tonumber(p[2]) - now)
    end
    local f = redis.call('ZRANGE', INFLIGHT, 0, 0, 'WITHSCORES')
    if f[2] then
        local d = math.max(0, tonumber(f[2]) - now)
        if result < 0 or d < result then
            result = d
        end
    end
    return result
end

