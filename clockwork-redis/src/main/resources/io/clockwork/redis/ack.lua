-- ack: ARGV maxAttempts, then (id, receipt) for each of one or more deliveries (a group commit of concurrent acks
-- to this partition). Deletes each message if its delivery still holds it. Returns per delivery 1 if deleted now,
-- 2 if the message no longer exists (a retried ack whose first attempt ran counts that as done), 0 if someone else
-- holds it. O(m log n) for m deliveries.
local result = {}
for i = 2, #ARGV, 2 do
    local id = ARGV[i]
    local state, _, seq = get_meta(id)
    if not state then
        result[#result + 1] = 2
    elseif state ~= 'F' or seq ~= tonumber(ARGV[i + 1]) then
        result[#result + 1] = 0
    else
        redis.call('ZREM', INFLIGHT, member(seq, id))
        redis.call('HDEL', META, id)
        redis.call('HDEL', PAYLOAD, id)
        result[#result + 1] = 1
    end
end
return result
