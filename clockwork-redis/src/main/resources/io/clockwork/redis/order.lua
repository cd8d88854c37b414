--[[
  order: marks the partition as ordered by priority (ready.lua): from then on its polls keep due messages in READY
  and take the highest priority first. A client runs it before its first offer of a message with a priority to the
  partition. Idempotent.

  KEYS[1] pending   ZSET   names ORDERED, the partition's <prefix>ordered (ready.lua)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used

  Reply: 1.
  Cost: O(1).
]]
local PENDING = KEYS[1]
-- include: ready_keys
redis.call('SET', ORDERED, '1')
return 1
