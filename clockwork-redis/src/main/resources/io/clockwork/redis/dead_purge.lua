--[[
  dead_purge: deletes up to `batch` dead letters, oldest first; the client repeats until fewer come back.

  KEYS[1] dead      ZSET   the oldest members are popped
  KEYS[2] meta      HASH   their fields are deleted
  KEYS[3] reason    HASH   their fields are deleted

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           batch: at most this many are deleted

  Reply: how many were deleted.
  Cost: O(batch log n).
]]
local DEAD = KEYS[1]
local META = KEYS[2]
local REASON = KEYS[3]
-- include: member
local dead = redis.call('ZPOPMIN', DEAD, tonumber(ARGV[2]))
for i = 1, #dead, 2 do
    local id = id_of(dead[i])
    redis.call('HDEL', META, id)
    redis.call('HDEL', REASON, id)
end
return #dead / 2
