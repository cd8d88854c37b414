--[[
  held: ends a delivery's hold on its message, for the scripts a delivery calls with its receipt (nack, release,
  kill): the delivery holds the message while its member <receipt><id> is in INFLIGHT and the message's META value
  is of that same scheduling. A message whose state was evicted is counted lost. A delivery of a named group's message
  frees the group's slot (groups.lua).
]]
-- include: member, meta, lost, groups, group_tail

-- Takes the delivery's member out of INFLIGHT; returns the message's attempts and META tail, and whether a group
-- with ready messages got its turn back (a poller may take one now), or nil if this delivery no longer holds it
-- (timed out and taken again, acked, cancelled) or its state was evicted.
local function release_hold(id, receipt)
    if redis.call('ZREM', INFLIGHT, member(receipt, id)) == 0 then
        return nil
    end
    local _, attempts, seq, tail = get_meta(id)
    if seq ~= receipt then
        lose()
        return nil
    end
    local g = tail_group(tail, 1)
    return attempts, tail, g ~= nil and group_release(g)
end
