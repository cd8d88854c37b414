--[[
  exists: whether this partition has ever held a message. Its sequence counter is created by the first offer and
  never deleted, so an emptied queue still exists and a mistyped name does not.

  KEYS[1] pending   ZSET   not used
  KEYS[2] inflight  ZSET   not used
  KEYS[3] dead      ZSET   not used
  KEYS[4] meta      HASH   not used
  KEYS[5] reason    HASH   not used
  KEYS[6] seq       STRING checked for existence
  KEYS[7] lost      STRING not used
  KEYS[8] counters  HASH   not used
  KEYS[9] signal    LIST   not used (absent in a cluster's other partitions)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used

  Reply: 1 if the partition exists, else 0.
  Cost: O(1).
]]
-- include: keys
return redis.call('EXISTS', SEQ)
