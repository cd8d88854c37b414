--[[
  revoked: the deliveries whose hold on their message ended without their own ack, nack, release or kill: the sweep
  took the message back when its visibility deadline passed, or a cancel deleted it in flight. REVOKED is a sorted
  set of their members <receipt><id>, scored by when (server ms), kept REVOKED_KEEP_MS and trimmed whenever one is
  added. An ack that finds its message gone reads it: a delivery whose hold was not revoked lost its message to
  nothing but its own ack, so a retried ack whose first attempt ran (its reply lost) is told apart from one whose
  lease was lost (ack_held.lua). Only these rare paths write it: an ack that finds its message held costs nothing
  more. The client trusts an answer only while the record reaches back far enough (ScriptReplies.REVOKED_KEEP).
]]

local REVOKED
local revoked_of -- the PENDING key REVOKED was built for: a function library builds it when that changes
-- per call {
if PENDING ~= revoked_of then
    revoked_of = PENDING
    REVOKED = string.sub(PENDING, 1, #PENDING - 7) .. 'revoked' -- PENDING is <prefix>pending
end
-- per call }
local REVOKED_KEEP_MS = 120000

-- Records that the deliveries of members (a non-empty list) lost their hold at `now`, and forgets older records.
local function revoke(members, now)
    local scored = {}
    for i = 1, #members do
        scored[2 * i - 1] = now
        scored[2 * i] = members[i]
    end
    redis.call('ZADD', REVOKED, unpack(scored))
    redis.call('ZREMRANGEBYSCORE', REVOKED, '-inf', '(' .. (now - REVOKED_KEEP_MS))
end
