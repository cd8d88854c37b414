-- ack: ARGV maxAttempts, then (id, "F <attempt> <receipt>", in-flight member) for each of m deliveries (m >= 1: a
-- group commit of concurrent acks to this partition, or one partition's share of an ackAll batch). Deletes each
-- message if its delivery still holds it. Returns per delivery 1 if deleted now, 2 if the message no longer exists
-- (a retried ack whose first attempt ran counts that as done), 0 if someone else holds it. O(m log n); commands per
-- call: HMGET, and if any is deleted one ZREM and two HDELs.
-- A delivery holds its message while META reads exactly "F <attempt> <receipt>" (in flight under this receipt;
-- a receipt is only ever given to one delivery, whose attempt count it fixes), so the check is a string comparison
-- with what the client sent. The client also sends the in-flight member, <receipt as 16 hex digits><id>, which the
-- script would otherwise format: Lua builds no string here.
local ids = {}
for i = 2, #ARGV, 3 do
    ids[#ids + 1] = ARGV[i]
end
local metas = redis.call('HMGET', META, unpack(ids))
local result = {}
local members = {}
local deleted = {}
local done = {}
for j = 1, #ids do
    local id = ids[j]
    if not metas[j] or done[id] then
        result[j] = 2
    elseif metas[j] ~= ARGV[3 * j] then
        result[j] = 0
    else
        done[id] = true
        members[#members + 1] = ARGV[3 * j + 1]
        deleted[#deleted + 1] = id
        result[j] = 1
    end
end
if #deleted > 0 then
    redis.call('ZREM', INFLIGHT, unpack(members))
    redis.call('HDEL', META, unpack(deleted))
    redis.call('HDEL', PAYLOAD, unpack(deleted))
end
return result
