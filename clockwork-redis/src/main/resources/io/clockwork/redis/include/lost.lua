--[[
  lost: a message whose state is half gone: its member is in a sorted set but its META value is missing, or belongs
  to a later scheduling of the same id (META was evicted and the id offered again). Redis evicts whole keys under
  memory pressure when maxmemory-policy is not noeviction (the client refuses such a server unless told to accept
  it). The caller has already removed the member; lose() counts the message in LOST, and in lost_now for the reply,
  so that it is reported instead of wedging the queue or vanishing without a word.
]]

-- per call {
local lost_now = 0
-- per call }
local function lose()
    lost_now = lost_now + 1
    redis.call('INCR', LOST)
end
