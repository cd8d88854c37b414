-- ack: ARGV maxAttempts, id, receipt. Deletes the message if this delivery still holds it. Returns 1 if deleted
-- now, 2 if the message no longer exists (a retried ack whose first attempt ran counts that as done), 0 if someone
-- else holds it. O(log n).
local id = ARGV[2]
local state, _, seq = get_meta(id)
if not state then
    return 2
end
if state ~= 'F' or seq ~= tonumber(ARGV[3]) then
    return 0
end
redis.call('ZREM', INFLIGHT, member(seq, id))
redis.call('HDEL', META, id)
redis.call('HDEL', PAYLOAD, id)
return 1
