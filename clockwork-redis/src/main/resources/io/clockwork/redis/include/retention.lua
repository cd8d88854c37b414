--[[
  retention: the queue's dead-letter bounds, the second and third words of ARGV[1] ("<maxAttempts> <max age ms>
  <max count>", the count already divided among the partitions). trim_dead removes dead letters oldest first while
  DEAD holds more than the count or its oldest died more than the age ago, at most `limit` per call, so every
  script stays O(log n) amortized: each death trims up to TRIM_PER_DEATH, more than the one it adds. Trimmed letters
  are counted in REASON's field '' (no id is empty), which stats.lua reports. Without the two words in ARGV[1]
  nothing is trimmed.
]]
-- include: member
local RETENTION_AGE
local RETENTION_COUNT
local retention_of -- the settings word they were read from: a function library reads them again when it changes
-- per call {
if ARGV[1] ~= retention_of then
    retention_of = ARGV[1]
    RETENTION_AGE, RETENTION_COUNT = string.match(ARGV[1], '^%d+ (%d+) (%d+)')
    RETENTION_AGE = tonumber(RETENTION_AGE)
    RETENTION_COUNT = tonumber(RETENTION_COUNT)
end
-- per call }
local TRIMMED_FIELD = ''
local TRIM_PER_DEATH = 10

-- Removes one trimmed member and, if its META value is that dead letter's, the letter's state.
local function trim_member(m)
    local id = id_of(m)
    local v = redis.call('HGET', META, id)
    if v and string.byte(v, 1) == 88 and owns(m, tonumber(string.match(v, '^%a %d+ (%x+)'), 16)) then -- 'X'
        redis.call('HDEL', META, id)
        redis.call('HDEL', REASON, id)
    end
end

-- Trims up to `limit` dead letters beyond the bounds at `now`; returns how many.
local function trim_dead(now, limit)
    if not RETENTION_COUNT then
        return 0
    end
    local n = 0
    local excess = redis.call('ZCARD', DEAD) - RETENTION_COUNT
    if excess > 0 then
        local popped = redis.call('ZPOPMIN', DEAD, math.min(excess, limit))
        for i = 1, #popped, 2 do
            trim_member(popped[i])
            n = n + 1
        end
    end
    if n < limit then
        local old = redis.call('ZRANGEBYSCORE', DEAD, '-inf', string.format('(%d', now - RETENTION_AGE), 'LIMIT', 0,
            limit - n)
        if #old > 0 then
            redis.call('ZREM', DEAD, unpack(old))
            for i = 1, #old do
                trim_member(old[i])
            end
            n = n + #old
        end
    end
    if n > 0 then
        redis.call('HINCRBY', REASON, TRIMMED_FIELD, n)
    end
    return n
end
