--[[
  face_count: how many elements are delayed and how many are due, at the server's clock (size and isEmpty of the two
  views).

  KEYS[1] pending   ZSET   counted
  KEYS[2] inflight  ZSET   not used
  KEYS[3] dead      ZSET   not used
  KEYS[4] meta      HASH   not used
  KEYS[5] reason    HASH   not used
  KEYS[6] seq       STRING not used
  KEYS[7] lost      STRING not used
  KEYS[8] counters  HASH   not used
  KEYS[9] signal    LIST   not used
  KEYS[10] order     ZSET   not used
  KEYS[11] values   ZSET   not used

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used

  Reply: {delayed, due}.
  Cost: O(log n).
]]
-- include: keys, clock
local now = now_ms()
local due = redis.call('ZCOUNT', PENDING, '-inf', now)
return {redis.call('ZCOUNT', PENDING, '-inf', '(+inf') - due, due}
