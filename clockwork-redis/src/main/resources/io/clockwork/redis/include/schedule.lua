--[[
  schedule: files a message again under a new sequence in PENDING. Every scheduling takes a new sequence, so a member
  and a receipt belong to one scheduling.
]]
-- include: meta, keep

-- Puts a message in PENDING, due at `due`; returns true if it is due now or earlier than the previous head, i.e.
-- if a blocked poller may be waiting too long.
local function schedule(id, attempts, due, now, tail)
    local head = redis.call('ZRANGEBYSCORE', PENDING, '-inf', '(+inf', 'WITHSCORES', 'LIMIT', '0', '1')
    local seq = redis.call('INCR', SEQ)
    redis.call('ZADD', PENDING, '+inf', KEEP_MEMBER, due, set_meta(id, 'D', attempts, seq, tail))
    return due <= now or head[2] == nil or due < tonumber(head[2])
end
