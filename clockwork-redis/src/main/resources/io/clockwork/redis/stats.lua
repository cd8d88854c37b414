--[[
  stats: the partition's counts, atomically, after sweeping expired deliveries. Lost counts the messages the scripts
  dropped because part of their state was evicted (LOST), plus the META values no sorted set refers to any more
  (their member's key was evicted: every live or dead message has exactly one META field and one member), a lower
  bound while members without META wait to be met by a poll. Counts, never a scan.

  KEYS[1] pending   ZSET   counted; the sweep reschedules into it
  KEYS[2] inflight  ZSET   counted; the sweep reads and removes from it
  KEYS[3] dead      ZSET   counted; the sweep buries into it
  KEYS[4] meta      HASH   counted (without keep.lua's field); the sweep rewrites it
  KEYS[5] reason    HASH   written by the sweep for what it buries; its field '' (trimmed count) read
  KEYS[6] seq       STRING incremented by the sweep
  KEYS[7] lost      STRING read; incremented by the sweep per message found with its state evicted
  KEYS[8] counters  HASH   retried and dead incremented by the sweep (one HINCRBY each at most)
  (REVOKED, the partition's <prefix>revoked: the sweep records the deliveries it expires, revoked.lua)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": maxAttempts
  ARGV[2]           sweep limit: at most this many expired deliveries are handled

  Reply: {delayed, ready, inFlight, dead, nextDueMs, lost, trimmed}: trimmed counts the dead letters the retention
         removed (retention.lua); nextDueMs is the ms until the next message not yet due
         falls due, or -1 if none.
  The cold store (cold.lua) is counted from its entry count, as delayed: its chunks whose earliest message is due
  are promoted first, whole chunks until at least 10 PROMOTE_LIMIT messages moved (a storm larger than that counts
  the rest as delayed, due in 0 ms, until polls promote them).
  Cost: O((1 + 2 sweep limit) log n): the sweep, and a retention trim of at most the sweep limit; plus the promotion
        of at most about 10 PROMOTE_LIMIT messages of the cold store.
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local DEAD = KEYS[3]
local META = KEYS[4]
local REASON = KEYS[5]
local SEQ = KEYS[6]
local LOST = KEYS[7]
local COUNTERS = KEYS[8]
-- include: clock, keep, sweep, retention, cold, cold_keys, lost, ready_keys, group_keys
local now, ceil = now_floor_ceil()
sweep(now, ARGV[2])
trim_dead(now, tonumber(ARGV[2]))
local first = cold_head()
if first and first <= now then
    cold_store(lose).promote(now, 10 * PROMOTE_LIMIT)
    first = cold_head()
end
-- Due, waiting in priority order (ready.lua) or in the named groups' ready sets (groups.lua).
local in_ready = redis.call('ZCOUNT', READY, '-inf', '(+inf') + tonumber(redis.call('GET', GCOUNT) or '0')
local hot = redis.call('ZCOUNT', PENDING, '-inf', '(+inf') + in_ready
local pending = hot + tonumber(redis.call('HGET', COLD, 'n') or '0')
local ready = redis.call('ZCOUNT', PENDING, '-inf', now) + in_ready
local next_at = nil
local later = redis.call('ZRANGEBYSCORE', PENDING, string.format('(%d', now), '(+inf', 'WITHSCORES', 'LIMIT', 0, 1)
if later[2] then
    next_at = tonumber(later[2])
end
if first and (next_at == nil or first < next_at) then
    next_at = first
end
local next_due = -1
if next_at then
    -- From the clock rounded up, like due times: never more than the delay an offer asked for.
    next_due = math.max(0, next_at - ceil)
end
local in_flight = redis.call('ZCOUNT', INFLIGHT, '-inf', '(+inf')
local dead = redis.call('ZCARD', DEAD)
local states = redis.call('HLEN', META) - redis.call('HEXISTS', META, KEEP_FIELD)
local orphans = math.max(0, states - hot - in_flight - dead)
return {pending - ready, ready, in_flight, dead, next_due, tonumber(redis.call('GET', LOST) or '0') + orphans,
    tonumber(redis.call('HGET', REASON, TRIMMED_FIELD) or '0')}
