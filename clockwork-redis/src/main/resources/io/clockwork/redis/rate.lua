--[[
  rate: the queue's rate limit for a poll of a partition whose scripts cannot reach partition 0's slot (a cluster's
  partitions other than 0): the client acquires permits here, polls its partition for at most as many (poll.lua),
  and gives back what it did not take, so the log (include/rate.lua) holds exactly the deliveries made, each at the
  server time of its grant, at most one poll's round trip before its take.

  KEYS[1] counters  HASH   partition 0's: limited incremented by a poll refused every permit
  KEYS[2] rate      ZSET   partition 0's log of grants: trimmed, read, extended by a grant, lowered by a give-back
  KEYS[3] config    HASH   partition 0's: its field rate is the limit

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           the action: 'a' acquire, 'g' give back
  ARGV[3]           acquire: how many permits are wanted; give back: the ms of the grant (acquire's reply)
  ARGV[4]           acquire: how many polls to count as held back if none is free (0 or 1); give back: how many
                    permits of that grant went unused

  Reply: acquire: {granted, grant ms, ms until the next permit frees when none was granted (else 0)}; granted is
         the wanted count without a stored limit. Give back: {0, 0, 0}.
  Cost: O(log m) (m: the milliseconds of the interval that granted permits); a give-back rewrites the members from
        its grant on (the grants of one round trip).
]]
local COUNTERS = KEYS[1]
local RATE = KEYS[2]
local CONFIG = KEYS[3]
-- include: clock, rate, rate_limit, counters
if ARGV[2] == 'g' then
    rate_give_back(RATE, tonumber(ARGV[3]), tonumber(ARGV[4]))
    return {0, 0, 0}
end
local wanted = tonumber(ARGV[3])
local permits, interval = rate_limit()
if not permits then
    return {wanted, 0, 0}
end
local now = now_ms()
local free, wait, last = rate_free(RATE, now, permits, interval)
if free == 0 then
    count_events('limited', tonumber(ARGV[4]))
    return {0, now, wait}
end
local granted = math.min(wanted, free)
return {granted, rate_grant(RATE, now, granted, last), 0}
