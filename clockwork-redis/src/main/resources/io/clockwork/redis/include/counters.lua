--[[
  counters: the partition's cumulative event counts, five fields of COUNTERS that any process may read (a dashboard
  samples them and charts their rates): offered (messages stored by an offer or a schedule's occurrence: added,
  replaced or extended), delivered (taken by a poll), acked, retried (scheduled again after a nack or an expired
  visibility timeout) and dead (dead-lettered by a nack, a kill or an expiry after maxAttempts). A script adds
  what it did with one HINCRBY per field it touches, whatever the number of messages, so counting costs O(1) per
  call. The Redisson face's elements are not counted.
]]

-- Adds n to a field of COUNTERS; nothing when n is 0. A count of one, the usual, goes as the string '1': Lua turns
-- a number argument into text with a float format, which costs more than the HINCRBY.
local function count_events(field, n)
    if n == 1 then
        redis.call('HINCRBY', COUNTERS, field, '1')
    elseif n > 0 then
        redis.call('HINCRBY', COUNTERS, field, n)
    end
end
