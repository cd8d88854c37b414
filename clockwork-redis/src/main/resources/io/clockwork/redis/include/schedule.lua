--[[
  schedule: files a message again under a new sequence, in PENDING (schedule) or DEAD (bury). Every scheduling takes
  a new sequence, so a member and a receipt belong to one scheduling.
]]
-- include: keys, meta, keep, retention

-- Puts a message in PENDING, due at `due`; returns true if it is due now or earlier than the previous head, i.e.
-- if a blocked poller may be waiting too long.
local function schedule(id, attempts, due, now, tail)
    local head = redis.call('ZRANGEBYSCORE', PENDING, '-inf', '(+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    local seq = redis.call('INCR', SEQ)
    redis.call('ZADD', PENDING, '+inf', KEEP_MEMBER, due, set_meta(id, 'D', attempts, seq, tail))
    return due <= now or head[2] == nil or due < tonumber(head[2])
end

-- Puts a message in DEAD at `now`, with why it died: `reason`, or if that is nil the last error its tail records,
-- or else `otherwise`. The dead message's tail keeps only the payload. Then applies the retention (retention.lua).
local function bury(id, attempts, reason, now, tail, otherwise)
    local err, plain = split_error(tail)
    local seq = redis.call('INCR', SEQ)
    redis.call('ZADD', DEAD, now, set_meta(id, 'X', attempts, seq, plain))
    redis.call('HSET', REASON, id, reason or err or otherwise)
    trim_dead(now, TRIM_PER_DEATH)
end
