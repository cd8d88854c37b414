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
  KEYS[2] inflight  ZSET   not used
  KEYS[3] dead      ZSET   not used
  KEYS[4] meta      HASH   the moved elements' values written
  KEYS[5] reason    HASH   not used
  KEYS[6] seq       STRING incremented per moved element
  KEYS[7] lost      STRING not used
  KEYS[8] counters  HASH   not used
  KEYS[9] signal    LIST   pushed when a moved element is due now
  KEYS[10] order     ZSET   the moved delayed elements added
  KEYS[11] values   ZSET   every moved element added
  KEYS[12] redisson timeout ZSET  redisson_delay_queue_timeout:{NAME}: member <packed id and value>, score due ms
  KEYS[13] redisson list    LIST  redisson_delay_queue:{NAME}: the same members, in offer order
  KEYS[14] redisson destination LIST  NAME: values already due

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": not used
  ARGV[2]           batch: the most elements moved by this call, at least 1

  Reply: {movedDue, movedDelayed, skipped, remaining}: skipped counts delayed-list entries whose element had already
         left the timeout set; remaining is what the three Redisson keys still hold (list entries counted once).
  Cost: O(batch log n).
]]
-- include: keys, clock, wake, face
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
local head = redis.call('ZRANGE', KEYS[12], 0, 0, 'WITHSCORES')
if head[2] and tonumber(head[2]) < first_due then
    first_due = tonumber(head[2]) - 1
end
local ready = redis.call('LRANGE', KEYS[14], 0, budget - 1)
for _, v in ipairs(ready) do
    file(v, first_due)
end
if #ready > 0 then
    redis.call('LTRIM', KEYS[14], #ready, -1)
    moved_due = #ready
    budget = budget - #ready
end

if budget > 0 then
    local entries = redis.call('LRANGE', KEYS[13], 0, budget - 1)
    for _, e in ipairs(entries) do
        local score = redis.call('ZSCORE', KEYS[12], e)
        if score then
            redis.call('ZREM', KEYS[12], e)
            file(value_of(e), tonumber(score))
            moved_delayed = moved_delayed + 1
        else
            skipped = skipped + 1
        end
    end
    if #entries > 0 then
        redis.call('LTRIM', KEYS[13], #entries, -1)
        budget = budget - #entries
    end
    if budget > 0 and redis.call('LLEN', KEYS[13]) == 0 then
        local rest = redis.call('ZRANGE', KEYS[12], 0, budget - 1, 'WITHSCORES')
        for i = 1, #rest, 2 do
            redis.call('ZREM', KEYS[12], rest[i])
            file(value_of(rest[i]), tonumber(rest[i + 1]))
            moved_delayed = moved_delayed + 1
        end
    end
end

if moved_due + moved_delayed > 0 then
    wake()
end
local remaining = redis.call('LLEN', KEYS[14]) + math.max(redis.call('ZCARD', KEYS[12]), redis.call('LLEN', KEYS[13]))
return {moved_due, moved_delayed, skipped, remaining}
