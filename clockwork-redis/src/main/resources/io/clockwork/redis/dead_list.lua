-- dead_list: ARGV maxAttempts, sweep limit, limit. Returns the oldest `limit` dead letters as a flat list of
-- {id, payload, attempts, reason, time of death ms}. A dead letter whose state was evicted is removed and counted
-- lost (see lose() in common.lua), so the list may be shorter than `limit`. O((sweep limit + limit) log n).
local now = now_ms()
sweep(now, tonumber(ARGV[2]))
local dead = redis.call('ZRANGE', DEAD, 0, tonumber(ARGV[3]) - 1, 'WITHSCORES')
local result = {}
for i = 1, #dead, 2 do
    local m = dead[i]
    local id = id_of(m)
    local state, attempts, seq, tail = get_meta(id)
    if state ~= 'X' or not owns(m, seq) then
        redis.call('ZREM', DEAD, m)
        lose()
    else
        result[#result + 1] = id
        result[#result + 1] = string.sub(tail, 2)
        result[#result + 1] = attempts
        result[#result + 1] = redis.call('HGET', REASON, id) or ''
        result[#result + 1] = tonumber(dead[i + 1])
    end
end
return result
