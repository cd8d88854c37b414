--[[
  dead_purge: deletes up to `batch` dead letters, oldest first; the client repeats until fewer come back.

  KEYS[1] pending   ZSET   not used
  KEYS[2] inflight  ZSET   not used
  KEYS[3] dead      ZSET   the oldest members are popped
  KEYS[4] meta      HASH   their fields are deleted
  KEYS[5] reason    HASH   their fields are deleted
  KEYS[6] seq       STRING not used
  KEYS[7] lost      STRING not used
  KEYS[8] counters  HASH   not used
  KEYS[9] signal    LIST   not used (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           batch: at most this many are deleted

  Reply: how many were deleted.
  Cost: O(batch log n).
]]
-- include: keys, member
local dead = redis.call('ZPOPMIN', DEAD, tonumber(ARGV[2]))
for i = 1, #dead, 2 do
    local id = id_of(dead[i])
    redis.call('HDEL', META, id)
    redis.call('HDEL', REASON, id)
end
return #dead / 2
