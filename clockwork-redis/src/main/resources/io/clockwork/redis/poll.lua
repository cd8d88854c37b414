-- poll: ARGV maxAttempts, sweep limit, visibility ms. Returns expired deliveries (at most `sweep limit`), then takes
-- the earliest message due by the server's clock and puts it in flight.
-- Returns {1, id, payload, attempt, receipt, client must signal 0/1} or {0, ms until the next event or -1}.
-- O((1 + sweep limit) log n).
local now = now_ms()
sweep(now, tonumber(ARGV[2]))
local head = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now, 'LIMIT', 0, 1)
if #head == 0 then
    return {0, next_event_in(now)}
end
local m = head[1]
local id = id_of(m)
redis.call('ZREM', PENDING, m)
local _, attempts = get_meta(id)
attempts = attempts + 1
local seq = redis.call('INCR', SEQ)
redis.call('ZADD', INFLIGHT, now + tonumber(ARGV[3]), member(seq, id))
set_meta(id, 'F', attempts, seq)
local must_signal = 0
-- More is ready: pass the wake-up on so another blocked poller takes it.
if #redis.call('ZRANGEBYSCORE', PENDING, '-inf', now, 'LIMIT', 0, 1) > 0 then
    must_signal = signal()
end
return {1, id, redis.call('HGET', PAYLOAD, id), attempts, seq, must_signal}
