-- dead_requeue: ARGV maxAttempts, id. Makes a dead letter due now with its attempts reset.
-- Returns {requeued 0/1, client must signal 0/1}. O(log n).
local id = ARGV[2]
local state, _, seq, tail, legacy = get_meta(id)
if state ~= 'X' then
    return {0, 0}
end
redis.call('ZREM', DEAD, member(seq, id))
redis.call('HDEL', REASON, id)
local now = now_ms()
if schedule(id, 0, now, now, tail, legacy) then
    return {1, signal()}
end
return {1, 0}
