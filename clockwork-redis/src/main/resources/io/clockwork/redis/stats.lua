-- stats: ARGV maxAttempts, sweep limit. Returns {delayed, ready, in flight, dead, ms until next due or -1, lost}
-- after sweeping expired deliveries, atomically for this partition. Lost counts the messages the scripts dropped
-- because part of their state was evicted (LOST), plus the META values no sorted set refers to any more (their
-- member's key was evicted: every live or dead message has exactly one META field and one member), a lower bound
-- while members without META wait to be met by a poll. O((1 + sweep limit) log n): counts, never a scan.
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
local in_flight = redis.call('ZCARD', INFLIGHT)
local dead = redis.call('ZCARD', DEAD)
local states = redis.call('HLEN', META) - redis.call('HEXISTS', META, KEEP_FIELD)
local orphans = math.max(0, states - pending - in_flight - dead)
return {pending - ready, ready, in_flight, dead, next_due, tonumber(redis.call('GET', LOST) or '0') + orphans}
