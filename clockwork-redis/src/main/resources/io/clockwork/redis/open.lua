--[[
  open: reads the queue's stored partition count, storing it first if the queue has none. The count is written once,
  by the first client that creates the queue; clients read it when they are built and refuse to run with another
  count, so that no client files messages where others never look.

  KEYS[1] config    HASH   the queue's configuration: partitions, created (server ms)
  KEYS[2] seq       STRING partition 0's sequence counter (both keys in partition 0's slot)

  ARGV[1]           partitions to store if the queue has none stored yet (0: store nothing, only read)

  Reply: {partitions, existed}: the stored partition count (0: none stored) and 1 if the queue was there before this
         call (with a stored count or, for a queue created before counts were stored, partition 0's counter), else 0.
  Cost: O(1).
]]
local config = KEYS[1]
local stored = redis.call('HGET', config, 'partitions')
if stored then
    return {tonumber(stored), 1}
end
local want = tonumber(ARGV[1])
if want > 0 then
    local t = redis.call('TIME')
    local created = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
    redis.call('HSET', config, 'partitions', string.format('%d', want), 'created', created)
    return {want, redis.call('EXISTS', KEYS[2])}
end
return {0, redis.call('EXISTS', KEYS[2])}
