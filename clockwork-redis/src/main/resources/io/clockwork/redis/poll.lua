-- poll: ARGV maxAttempts, sweep limit, visibility ms, n. Returns expired deliveries (at most `sweep limit`) to the
-- schedule, then takes up to n of the earliest messages due by the server's clock, in order, and puts them in
-- flight (n: how many pollers of one client were waiting for this partition at once, or a batch poll's size).
-- Returns {k taken, ms until the next event or -1 (only when k < n), client must signal 0/1,
--          then id, payload, attempt, receipt for each message taken}.
-- A delivery's receipt is the sequence number its message was scheduled under: every scheduling (offer, nack,
-- expiry, reschedule, requeue) takes a new one and a scheduled message is delivered at most once, so it is unique
-- per delivery, and the in-flight member is the pending member itself (no new member to format).
-- O((n + sweep limit) log n); commands per call besides the sweep: TIME, ZRANGEBYSCORE, and if any is due one
-- ZREMRANGEBYRANK (the k taken are the first k by rank), two HMGETs, one ZADD and one HSET for all of them.
local now = now_ms()
sweep(now, tonumber(ARGV[2]))
local n = tonumber(ARGV[4])
local heads = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now, 'LIMIT', 0, n + 1)
local k = math.min(n, #heads)
local result = {k, -1, 0}
local more = #heads > k
if k > 0 then
    local ids = {}
    for i = 1, k do
        ids[i] = id_of(heads[i])
    end
    redis.call('ZREMRANGEBYRANK', PENDING, 0, k - 1)
    local metas = redis.call('HMGET', META, unpack(ids))
    local payloads = redis.call('HMGET', PAYLOAD, unpack(ids))
    local visible_until = string.format('%d', now + tonumber(ARGV[3])) -- one conversion for all k scores
    local scored = {}
    local states = {KEEP_FIELD, KEEP_VALUE} -- see common.lua
    for i = 1, k do
        -- "D <attempts> <seq>": the seq is the receipt, kept as the string it is.
        local a, seq = string.match(metas[i], '^%a (%d+) (%d+)$')
        local attempts = tonumber(a) + 1
        local at = 2 * i
        scored[at - 1] = visible_until
        scored[at] = heads[i]
        states[at + 1] = ids[i]
        states[at + 2] = 'F ' .. attempts .. ' ' .. seq
        at = 4 * i
        result[at] = ids[i]
        result[at + 1] = payloads[i]
        result[at + 2] = attempts
        result[at + 3] = tonumber(seq)
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
