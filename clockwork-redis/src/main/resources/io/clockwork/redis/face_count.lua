--[[
  face_count: how many elements are delayed and how many are due, at the server's clock (size and isEmpty of the two
  views).

  KEYS[1] pending   ZSET   counted

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used

  Reply: {delayed, due}.
  Cost: O(log n).
]]
local PENDING = KEYS[1]
-- include: clock
local now = now_ms()
local due = redis.call('ZCOUNT', PENDING, '-inf', now)
return {redis.call('ZCOUNT', PENDING, '-inf', '(+inf') - due, due}
