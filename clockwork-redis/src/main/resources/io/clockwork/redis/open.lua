--[[
  open: reads the queue's stored partition count, storing it first if the queue has none. The count is written once,
  by the first client that creates the queue; clients read it when they are built and refuse to run with another
  count, so that no client files messages where others never look.

  KEYS[1] seq       STRING partition 0's sequence counter (both keys in partition 0's slot)
  KEYS[2] config    HASH   the queue's configuration: partitions, created (server ms)

  ARGV[1]           partitions to store if the queue has none stored yet (0: store nothing, only read)

  Reply: {partitions, existed}: the stored partition count (0: none stored) and 1 if the queue was there before this
         call (a stored count, or partition 0's counter), else 0.
  Cost: O(1).
]]
local SEQ = KEYS[1]
local CONFIG = KEYS[2]
local stored = redis.call('HGET', CONFIG, 'partitions')
if stored then
    return {tonumber(stored), 1}
end
local want = tonumber(ARGV[1])
if want > 0 then
    local t = redis.call('TIME')
    local created = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
    redis.call('HSET', CONFIG, 'partitions', string.format('%d', want), 'created', created)
    return {want, redis.call('EXISTS', SEQ)}
end
return {0, redis.call('EXISTS', SEQ)}
