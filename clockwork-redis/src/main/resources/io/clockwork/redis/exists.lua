--[[
  exists: whether this partition has ever held a message. Its sequence counter is created by the first offer and
  never deleted, so an emptied queue still exists and a mistyped name does not.

  KEYS[1] seq       STRING checked for existence

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used

  Reply: 1 if the partition exists, else 0.
  Cost: O(1).
]]
local SEQ = KEYS[1]
return redis.call('EXISTS', SEQ)
