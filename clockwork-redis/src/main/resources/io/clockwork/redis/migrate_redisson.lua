--[[
  migrate_redisson: moves one bounded batch of a Redisson RDelayedQueue into a queue of the Redisson face, in one
  atomic step, so a run cut off anywhere leaves every element in exactly one of the two and a re-run goes on from
  there. First the destination list (elements Redisson already transferred, due now), in list order, filed due
  before anything else; then the delayed list in offer order, each element with its due time from the timeout set
  (an element whose member left the set meanwhile was transferred by a running Redisson client, and is met in the
  destination list by a later batch); then any member of the timeout set the list lacks. The payload is Redisson's
  encoded value, moved as bytes. Redisson's keys are in other hash tags, so on a Redis Cluster this works only if
  they share the face queue's slot; on a standalone server always.

  KEYS[1] pending   ZSET   the moved elements' members added
  KEYS[2] meta      HASH   the moved elements' values written
  KEYS[3] seq       STRING incremented per moved element
  KEYS[4] order     ZSET   the moved delayed elements added
  KEYS[5] values    ZSET   every moved element added
  KEYS[6] signal    LIST   pushed when a moved element is due now
  KEYS[7] redisson timeout ZSET  redisson_delay_queue_timeout:{NAME}: member <packed id and value>, score due ms
  KEYS[8] redisson list    LIST  redisson_delay_queue:{NAME}: the same members, in offer order
  KEYS[9] redisson destination LIST  NAME: values already due

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           batch: the most elements moved by this call, at least 1

  Reply: {movedDue, movedDelayed, skipped, remaining}: skipped counts delayed-list entries whose element had already
         left the timeout set; remaining is what the three Redisson keys still hold (list entries counted once).
  Cost: O(batch log n).
]]
local PENDING = KEYS[1]
local META = KEYS[2]
local SEQ = KEYS[3]
local ORDER = KEYS[4]
local VALUES = KEYS[5]
local SIGNAL = KEYS[6]
-- include: clock, wake, face
local now = now_ms()
local budget = tonumber(ARGV[2])
local moved_due, moved_delayed, skipped = 0, 0, 0

local function file(payload, due)
    file_element(PENDING, META, SEQ, ORDER, VALUES, payload, due, now)
end

local function value_of(packed)
    local _, value = struct.unpack('Bc0Lc0', packed)
    return value
end

-- Already due: before the earliest element still delayed (and before now), in list order.
local first_due = now
local head = redis.call('ZRANGE', KEYS[7], 0, 0, 'WITHSCORES')
if head[2] and tonumber(head[2]) < first_due then
    first_due = tonumber(head[2]) - 1
end
local ready = redis.call('LRANGE', KEYS[9], 0, budget - 1)
for _, v in ipairs(ready) do
    file(v, first_due)
end
if #ready > 0 then
    redis.call('LTRIM', KEYS[9], #ready, -1)
    moved_due = #ready
    budget = budget - #ready
end

if budget > 0 then
    local entries = redis.call('LRANGE', KEYS[8], 0, budget - 1)
    for _, e in ipairs(entries) do
        local score = redis.call('ZSCORE', KEYS[7], e)
        if score then
            redis.call('ZREM', KEYS[7], e)
            file(value_of(e), tonumber(score))
            moved_delayed = moved_delayed + 1
        else
            skipped = skipped + 1
        end
    end
    if #entries > 0 then
        redis.call('LTRIM', KEYS[8], #entries, -1)
        budget = budget - #entries
    end
    if budget > 0 and redis.call('LLEN', KEYS[8]) == 0 then
        local rest = redis.call('ZRANGE', KEYS[7], 0, budget - 1, 'WITHSCORES')
        for i = 1, #rest, 2 do
            redis.call('ZREM', KEYS[7], rest[i])
            file(value_of(rest[i]), tonumber(rest[i + 1]))
            moved_delayed = moved_delayed + 1
        end
    end
end

if moved_due + moved_delayed > 0 then
    wake()
end
local remaining = redis.call('LLEN', KEYS[9]) + math.max(redis.call('ZCARD', KEYS[7]), redis.call('LLEN', KEYS[8]))
return {moved_due, moved_delayed, skipped, remaining}
