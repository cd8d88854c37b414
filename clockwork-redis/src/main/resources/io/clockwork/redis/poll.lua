-- poll: ARGV maxAttempts, sweep limit, visibility ms, n. Returns expired deliveries (at most `sweep limit`) to the
-- schedule, then takes up to n of the earliest messages due by the server's clock, in order, and puts them in
-- flight (n: how many pollers of one client were waiting for this partition at once; each gets one).
-- Returns {k taken, ms until the next event or -1 (only when k < n), client must signal 0/1,
--          then id, payload, attempt, receipt for each message taken}.
-- O((n + sweep limit) log n).
local now = now_ms()
sweep(now, tonumber(ARGV[2]))
local n = tonumber(ARGV[4])
local visible_until = now + tonumber(ARGV[3])
local heads = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now, 'LIMIT', 0, n + 1)
local k = math.min(n, #heads)
local result = {k, -1, 0}
for i = 1, k do
    local m = heads[i]
    local id = id_of(m)
    redis.call('ZREM', PENDING, m)
    local _, attempts = get_meta(id)
    attempts = attempts + 1
    local seq = redis.call('INCR', SEQ)
    redis.call('ZADD', INFLIGHT, visible_until, member(seq, id))
    set_meta(id, 'F', attempts, seq)
    result[#result + 1] = id
    result[#result + 1] = redis.call('HGET', PAYLOAD, id)
    result[#result + 1] = attempts
    result[#result + 1] = seq
end
if k < n then
    result[2] = next_event_in(now)
elseif #heads > k then
    -- More is ready: pass the wake-up on so another blocked poller takes it.
    result[3] = signal()
end
return result
