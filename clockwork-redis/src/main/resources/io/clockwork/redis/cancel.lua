-- cancel: ARGV maxAttempts, id. Removes a scheduled or in-flight message. Returns 1 if removed. O(log n).
local id = ARGV[2]
local state, _, seq, _, legacy = get_meta(id)
if state == nil or state == 'X' then
    return 0
end
-- Live: its member is in PENDING (scheduled) or INFLIGHT (delivered; a legacy value says F).
local m = member(seq, id)
if redis.call('ZREM', PENDING, m) == 0 then
    redis.call('ZREM', INFLIGHT, m)
end
forget(id, legacy)
return 1
