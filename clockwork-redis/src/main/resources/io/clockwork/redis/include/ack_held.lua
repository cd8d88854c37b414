--[[
  ack_held: deletes each acked message whose delivery still holds it, as ack.lua's header describes.
]]
-- include: counters, revoked, groups, group_tail, wake

-- Acks the deliveries given as (id, member <receipt><id>, group) triples in ARGV from index `from` on (group: the
-- message's group as its delivery read it, '' for none); returns per delivery 1 (deleted now), 2 (the message no
-- longer exists and this delivery's hold was never revoked: only its own ack can have deleted it) or 0 (another
-- delivery holds it, or this delivery's hold was revoked, or the queue was deleted).
local function ack_held(from)
    if #ARGV == from + 2 then
        -- One delivery, the usual call: its ZREM answers whether it holds the message, so no ZMSCORE first. Its ack
        -- names the group exactly when its score has the half millisecond: both come from the message's tail at the
        -- take, and a message in flight keeps its tail.
        local g = ARGV[from + 2]
        if redis.call('ZREM', INFLIGHT, ARGV[from + 1]) == 1 then
            if g ~= '' and group_release(g) then
                wake() -- a poller may take the group's next message
            end
            redis.call('HDEL', META, ARGV[from])
            count_events('acked', 1)
            return {1}
        end
    end
    local ids = {}
    local members = {}
    for i = from, #ARGV, 3 do
        ids[#ids + 1] = ARGV[i]
        members[#members + 1] = ARGV[i + 1]
    end
    local held = redis.call('ZMSCORE', INFLIGHT, unpack(members))
    local result = {}
    local removed = {}
    local deleted = {}
    local done = {}
    local others = {}
    local grouped = {} -- the deleted ones whose delivery holds a group's slot (groups.lua's HALF)
    for j = 1, #ids do
        local id = ids[j]
        if done[id] then
            result[j] = 2
        elseif held[j] then
            done[id] = true
            removed[#removed + 1] = members[j]
            deleted[#deleted + 1] = id
            if string.byte(held[j], -2) == 46 then -- '.': a named group's delivery
                grouped[#grouped + 1] = from + 3 * j - 1 -- its group's index in ARGV
            end
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
        local gone = {}
        local gone_members = {}
        for i = 1, #others do
            if metas[i] then
                result[others[i]] = 0
            else
                gone[#gone + 1] = others[i]
                gone_members[#gone_members + 1] = members[others[i]]
            end
        end
        if #gone > 0 then
            -- SEQ lives as long as the queue: without it the queue was deleted, not the message acked.
            local live = redis.call('EXISTS', SEQ) == 1
            local revoked = redis.call('ZMSCORE', REVOKED, unpack(gone_members))
            for i = 1, #gone do
                if live and not revoked[i] then
                    result[gone[i]] = 2
                else
                    result[gone[i]] = 0
                end
            end
        end
    end
    if #grouped > 0 then
        -- The group comes with the ack: a message in flight keeps its tail (only a delivery's end rewrites it), so
        -- the group its delivery read is the one whose slot it holds; without one, META tells.
        local freed = false
        for i = 1, #grouped do
            local g = ARGV[grouped[i]]
            if g == '' then
                local v = redis.call('HGET', META, ARGV[grouped[i] - 2])
                g = v and meta_group(v)
            end
            if g and group_release(g) then
                freed = true
            end
        end
        if freed then
            wake() -- a poller may take the group's next message
        end
    end
    if #deleted > 0 then
        redis.call('ZREM', INFLIGHT, unpack(removed))
        redis.call('HDEL', META, unpack(deleted))
        count_events('acked', #deleted)
    end
    return result
end
