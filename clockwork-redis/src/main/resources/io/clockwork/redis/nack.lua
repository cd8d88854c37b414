-- nack: ARGV maxAttempts, id, receipt, retry delay ms. If this delivery still holds the message, schedules it again
-- or, after its last allowed attempt, buries it. Returns {held 0/1, client must signal 0/1}. O(log n).
local id = ARGV[2]
local state, attempts, seq = get_meta(id)
if state ~= 'F' or seq ~= tonumber(ARGV[3]) then
    return {0, 0}
end
redis.call('ZREM', INFLIGHT, member(seq, id))
local now, ceil = now_floor_ceil()
if attempts >= MAX_ATTEMPTS then
    bury(id, attempts, max_attempts_reason(), now)
    return {1, 0}
end
if schedule(id, attempts, due_at(tonumber(ARGV[4]), now, ceil), now) then
    return {1, signal()}
end
return {1, 0}
