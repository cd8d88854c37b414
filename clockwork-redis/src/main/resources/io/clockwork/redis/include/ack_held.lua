--[[
  ack_held: deletes each acked message whose delivery still holds it, as ack.lua's header describes.
]]
-- include: keys, counters

-- Acks the deliveries given as (id, member <receipt><id>) pairs in ARGV from index `from` on; returns per delivery
-- 1 (deleted now), 2 (the message no longer exists) or 0 (another delivery holds it).
local function ack_held(from)
    local ids = {}
    local members = {}
    for i = from, #ARGV, 2 do
        ids[#ids + 1] = ARGV[i]
        members[#members + 1] = ARGV[i + 1]
    end
    local held = redis.call('ZMSCORE', INFLIGHT, unpack(members))
    local result = {}
    local removed = {}
    local deleted = {}
    local done = {}
    local others = {}
    for j = 1, #ids do
        local id = ids[j]
        if done[id] then
            result[j] = 2
        elseif held[j] then
            done[id] = true
            removed[#removed + 1] = members[j]
            deleted[#deleted + 1] = id
            result[j] = 1
        else
            others[#others + 1] = j
        end
    end
    if #others > 0 then
        -- Read before the deletes below, as if each ack ran alone in order.
        local other_ids = {}
        for i = 1, #others do
            other_ids[i] = ids[others[i]]
        end
        local metas = redis.call('HMGET', META, unpack(other_ids))
        for i = 1, #others do
            if metas[i] then
                result[others[i]] = 0
            else
                result[others[i]] = 2
            end
        end
    end
    if #deleted > 0 then
        redis.call('ZREM', INFLIGHT, unpack(removed))
        redis.call('HDEL', META, unpack(deleted))
        count_events('acked', #deleted)
    end
    return result
end
