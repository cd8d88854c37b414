--[[
  bury: files a message again under a new sequence in DEAD, with why it died, then applies the retention. Every
  scheduling takes a new sequence, so a member and a receipt belong to one scheduling.
]]
-- include: meta, retention

-- Puts a message in DEAD at `now`, with why it died: `reason`, or if that is nil the last error its tail records,
-- or else `otherwise`. The dead message's tail keeps only the payload. Then applies the retention (retention.lua).
local function bury(id, attempts, reason, now, tail, otherwise)
    local err, plain = split_error(tail)
    local seq = redis.call('INCR', SEQ)
    redis.call('ZADD', DEAD, now, set_meta(id, 'X', attempts, seq, plain))
    redis.call('HSET', REASON, id, reason or err or otherwise)
    trim_dead(now, TRIM_PER_DEATH)
end
