-- stats: ARGV maxAttempts, sweep limit. Returns {delayed, ready, in flight, dead, ms until next due or -1} after
-- sweeping expired deliveries, atomically for this partition. O((1 + sweep limit) log n): ZCOUNT, never a scan.
local now = now_ms()
sweep(now, tonumber(ARGV[2]))
local pending = redis.call('ZCARD', PENDING)
local ready = redis.call('ZCOUNT', PENDING, '-inf', now)
local next_due = -1
local later = redis.call('ZRANGEBYSCORE', PENDING, string.format('(%d', now), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if later[2] then
    next_due = tonumber(later[2]) - now
end
return {pending - ready, ready, redis.call('ZCARD', INFLIGHT), redis.call('ZCARD', DEAD), next_due}
