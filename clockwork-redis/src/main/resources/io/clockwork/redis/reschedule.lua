-- reschedule: ARGV maxAttempts, id, delay ms. Moves a scheduled message to now + delay, as if offered now.
-- Returns {moved 0/1, client must signal 0/1}. O(log n).
local id = ARGV[2]
local state, attempts, seq = get_meta(id)
if state ~= 'D' then
    return {0, 0}
end
redis.call('ZREM', PENDING, member(seq, id))
local now, ceil = now_floor_ceil()
if schedule(id, attempts, due_at(tonumber(ARGV[3]), now, ceil), now) then
    return {1, signal()}
end
return {1, 0}
