--[[
  extend: moves a delivery's visibility deadline to now + visibility, if the delivery still holds its message (its
  member <receipt><id> is in INFLIGHT, even past its deadline until a sweep returns it): a consumer's heartbeat for
  work that outlasts the visibility timeout. Nothing else changes.

  KEYS[1] inflight  ZSET   the delivery's member gets its new deadline

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           id
  ARGV[3]           receipt: the delivery's sequence, in decimal
  ARGV[4]           visibility ms: the new deadline is the server's clock plus this

  Reply: 1 if the delivery holds its message until the new deadline, 0 if it no longer holds it (nothing changed).
  Cost: O(log n); commands: ZMSCORE, TIME, ZADD XX.
]]
local INFLIGHT = KEYS[1]
-- include: clock, member
local m = member(tonumber(ARGV[3]), ARGV[2])
local held = redis.call('ZMSCORE', INFLIGHT, m)[1] -- ZMSCORE, as ack.lua: no further ACL rule
if not held then
    return 0
end
local deadline = string.format('%d', now_ms() + tonumber(ARGV[4]))
if string.byte(held, -2) == 46 then -- '.': a named group's delivery keeps its half millisecond (groups.lua)
    deadline = deadline .. '.5'
end
redis.call('ZADD', INFLIGHT, 'XX', deadline, m)
return 1
