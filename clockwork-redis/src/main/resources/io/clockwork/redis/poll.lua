-- poll: ARGV maxAttempts, sweep limit, visibility ms, n. Returns expired deliveries (at most `sweep limit`) to the
-- schedule, then takes up to n of the earliest messages due by the server's clock, in order, and puts them in
-- flight (n: how many pollers of one client were waiting for this partition at once; each gets one).
-- Returns {k taken, ms until the next event or -1 (only when k < n), client must signal 0/1,
--          then id, payload, attempt, receipt for each message taken}.
-- O((n + sweep limit) log n); commands per call besides the sweep: TIME, ZRANGEBYSCORE, and if any is due one
-- ZREM, two HMGETs, INCRBY, ZADD and HSET for all of them.
local now = now_ms()
sweep(now, tonumber(ARGV[2]))
local n = tonumber(ARGV[4])
local heads = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now, 'LIMIT', 0, n + 1)
local k = math.min(n, #heads)
local result = {k, -1, 0}
local more = #heads > k
if k > 0 then
    heads[k + 1] = nil -- the look-ahead member, if any, stays
    local ids = {}
    for i = 1, k do
        ids[i] = id_of(heads[i])
    end
    redis.call('ZREM', PENDING, unpack(heads))
    local metas = redis.call('HMGET', META, unpack(ids))
    local payloads = redis.call('HMGET', PAYLOAD, unpack(ids))
    local base = redis.call('INCRBY', SEQ, k) - k
    local visible_until = now + tonumber(ARGV[3])
    local scored = {}
    local states = {KEEP_FIELD, KEEP_VALUE} -- see common.lua
    for i = 1, k do
        -- Only the attempt count of "<state> <attempts> <seq>" is needed here: a shorter pattern than parse_meta's.
        local attempts = tonumber(string.match(metas[i], '^%a (%d+)')) + 1
        local seq = base + i
        local at = 2 * i
        scored[at - 1] = visible_until
        scored[at] = member(seq, ids[i])
        states[at + 1] = ids[i]
        states[at + 2] = string.format('F %d %d', attempts, seq)
        at = 4 * i
        result[at] = ids[i]
        result[at + 1] = payloads[i]
        result[at + 2] = attempts
        result[at + 3] = seq
    end
    redis.call('ZADD', INFLIGHT, unpack(scored))
    redis.call('HSET', META, unpack(states))
end
if k < n then
    result[2] = next_event_in(now)
elseif more then
    -- More is ready: pass the wake-up on so another blocked poller takes it.
    result[3] = signal()
end
return result
