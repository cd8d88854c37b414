-- cancel: ARGV maxAttempts, id. Removes a scheduled or in-flight message. Returns 1 if removed. O(log n).
local id = ARGV[2]
local state, _, seq = get_meta(id)
if state == 'D' then
    redis.call('ZREM', PENDING, member(seq, id))
elseif state == 'F' then
    redis.call('ZREM', INFLIGHT, member(seq, id))
else
    return 0
end
redis.call('HDEL', META, id)
redis.call('HDEL', PAYLOAD, id)
return 1
