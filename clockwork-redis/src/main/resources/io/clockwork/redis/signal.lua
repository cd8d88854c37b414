--[[
  signal: wakes one blocked poller, for a client whose script could not push the signal itself (the signal key is in
  another cluster slot). The list never holds more than one token.

  KEYS[1] signal    LIST   the queue's signal list

  Reply: 1.
  Cost: O(1).
]]
local SIGNAL = KEYS[1]
redis.call('LPUSH', SIGNAL, '1')
redis.call('LTRIM', SIGNAL, 0, 0)
return 1
