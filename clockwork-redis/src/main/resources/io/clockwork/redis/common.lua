-- Clockwork RedisDelayedQueue: helpers prepended to every operation's script (see RedisDelayedQueue's design note
-- and docs/redis-queue.md). Every script gets the same keys, all in one partition's hash tag except SIGNAL:
local PENDING = KEYS[1]   -- ZSET  member <seq:16 hex><id>, score due time (server ms): delayed and ready messages
local INFLIGHT = KEYS[2]  -- ZSET  member <seq:16 hex><id>, score visibility deadline (server ms)
local DEAD = KEYS[3]      -- ZSET  member <seq:16 hex><id>, score time of death (server ms)
local PAYLOAD = KEYS[4]   -- HASH  id -> encoded value
local META = KEYS[5]      -- HASH  id -> "<state> <attempts> <seq>", state D (scheduled), F (in flight), X (dead)
local REASON = KEYS[6]    -- HASH  id -> why it died
local SEQ = KEYS[7]       -- STRING per-partition counter: FIFO tie-break within a due time, and delivery receipts
local SIGNAL = KEYS[8]    -- LIST  wake-up for blocked pollers; nil when it lives in another cluster slot
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
-- default): written along with other fields of PAYLOAD and META, it keeps both hashes in hashtable encoding, so
-- small queues get O(1) field access instead of listpack scans, and the hashes are not deleted and recreated each
-- time the queue runs empty.
local KEEP_FIELD = ''
local KEEP_VALUE = 'clockwork: keeps this hash in hashtable encoding (longer than hash-max-listpack-value)'

-- Parses a META value "<state> <attempts> <seq>".
local function parse_meta(m)
    local state, attempts, seq = string.match(m, '^(%a) (%d+) (%d+)$')
    return state, tonumber(attempts), tonumber(seq)
end

local function get_meta(id)
    local m = redis.call('HGET', META, id)
    if not m then
        return nil
    end
    return parse_meta(m)
end

local function meta_value(state, attempts, seq)
    return string.format('%s %d %d', state, attempts, seq)
end

local function set_meta(id, state, attempts, seq)
    redis.call('HSET', META, id, string.format('%s %d %d', state, attempts, seq))
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

-- Puts a message in the schedule; returns true if it is due now or earlier than the previous head, i.e. if a
-- blocked poller may be waiting too long.
local function schedule(id, attempts, due, now)
    local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
    local seq = redis.call('INCR', SEQ)
    redis.call('ZADD', PENDING, due, member(seq, id))
    set_meta(id, 'D', attempts, seq)
    return due <= now or head[2] == nil or due < tonumber(head[2])
end

local function bury(id, attempts, reason, now)
    local seq = redis.call('INCR', SEQ)
    redis.call('ZADD', DEAD, now, member(seq, id))
    set_meta(id, 'X', attempts, seq)
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
        local _, attempts = get_meta(id)
        if attempts >= MAX_ATTEMPTS then
            bury(id, attempts, max_attempts_reason(), now)
        else
            schedule(id, attempts, tonumber(expired[i + 1]), now)
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

