--[[
  sweep: returns in-flight messages whose visibility deadline passed to PENDING (due at that deadline), or buries
  them once they have had MAX_ATTEMPTS deliveries (the reason: their last recorded error, or the attempts count).
  Counts both in COUNTERS (retried, dead), one HINCRBY per field for the whole sweep, and records the expired
  deliveries in REVOKED (revoked.lua): a late ack of theirs must not pass for done.
  At most `limit` per call, so a call stays O(limit log n). The limit comes as ARGV carries it, a string, and `now_s`
  (optional) is `now` as a string: a number passed to redis.call costs a float format. An expired delivery of a named
  group's message (its deadline ends in a half millisecond, groups.lua) frees the group's slot: at its visibility
  deadline, never earlier.
]]
-- include: member, meta, lost, attempts, schedule, counters, revoked, bury, groups, group_tail

local function sweep(now, limit, now_s)
    local retried, dead = 0, 0
    local expired = redis.call('ZRANGEBYSCORE', INFLIGHT, '-inf', now_s or string.format('%d', now), 'WITHSCORES',
        'LIMIT', '0', limit)
    local revoked = {}
    for i = 1, #expired, 2 do
        local m = expired[i]
        local id = id_of(m)
        redis.call('ZREM', INFLIGHT, m)
        revoked[#revoked + 1] = m
        local state, attempts, seq, tail = get_meta(id)
        if state ~= 'D' or not owns(m, seq) then
            lose()
        else
            attempts = attempts + 1 -- the delivery that expired
            local deadline = tonumber(expired[i + 1])
            if attempts >= MAX_ATTEMPTS then
                bury(id, attempts, nil, now, tail, max_attempts_reason())
                dead = dead + 1
            else
                schedule(id, attempts, math.floor(deadline), now, tail)
                retried = retried + 1
            end
            if deadline % 1 ~= 0 then -- a named group's delivery
                group_release(tail_group(tail, 1))
            end
        end
    end
    count_events('retried', retried)
    count_events('dead', dead)
    if #revoked > 0 then
        revoke(revoked, now)
    end
end
