-- kill: ARGV maxAttempts, id, receipt, reason. Buries a delivered message the client could not decode, if this
-- delivery still holds it. Returns 0/1. O(log n).
local id = ARGV[2]
local state, attempts, seq = get_meta(id)
if state ~= 'F' or seq ~= tonumber(ARGV[3]) then
    return 0
end
redis.call('ZREM', INFLIGHT, member(seq, id))
bury(id, attempts, ARGV[4], now_ms())
return 1
