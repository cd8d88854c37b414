-- ack: ARGV maxAttempts, id, receipt. Deletes the message if this delivery still holds it. Returns 0/1. O(log n).
local id = ARGV[2]
local state, _, seq = get_meta(id)
if state ~= 'F' or seq ~= tonumber(ARGV[3]) then
    return 0
end
redis.call('ZREM', INFLIGHT, member(seq, id))
redis.call('HDEL', META, id)
redis.call('HDEL', PAYLOAD, id)
return 1
