-- reschedule: ARGV maxAttempts, id, delay ms. Moves a scheduled message to now + delay, as if offered now.
-- Returns {moved 0/1, client must signal 0/1}. O(log n).
local id = ARGV[2]
local state, attempts, seq, tail, legacy = get_meta(id)
-- Scheduled: live and its member in PENDING (an in-flight message's member is in INFLIGHT).
if state ~= 'D' or redis.call('ZREM', PENDING, member(seq, id)) == 0 then
    return {0, 0}
end
local now, ceil = now_floor_ceil()
if schedule(id, attempts, due_at(tonumber(ARGV[3]), now, ceil), now, tail, legacy) then
    return {1, signal()}
end
return {1, 0}
