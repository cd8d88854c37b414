--[[
  signal: wakes one blocked poller, for a client whose script could not push the signal itself (the signal key is in
  another cluster slot). The list never holds more than one token (wake.lua: pushed only when empty).

  KEYS[1] signal    LIST   the queue's signal list

  Reply: 1.
  Cost: O(1): an LLEN, and an LPUSH when no token is there.
]]
local SIGNAL = KEYS[1]
-- include: wake
wake()
return 1
