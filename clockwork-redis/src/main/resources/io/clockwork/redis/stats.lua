-- stats: ARGV maxAttempts, sweep limit. Returns {delayed, ready, in flight, dead, ms until next due or -1} after
-- sweeping expired deliveries, atomically for this partition. O((1 + sweep limit) log n): ZCOUNT, never a scan.
local now, ceil = now_floor_ceil()
sweep(now, tonumber(ARGV[2]))
local pending = redis.call('ZCARD', PENDING)
local ready = redis.call('ZCOUNT', PENDING, '-inf', now)
local next_due = -1
local later = redis.call('ZRANGEBYSCORE', PENDING, string.format('(%d', now), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if later[2] then
    -- From the clock rounded up, like due times: never more than the delay an offer asked for.
    next_due = math.max(0, tonumber(later[2]) - ceil)
end
return {pending - ready, ready, redis.call('ZCARD', INFLIGHT), redis.call('ZCARD', DEAD), next_due}
