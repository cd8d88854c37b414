-- kill: ARGV maxAttempts, id, receipt, reason. Buries a delivered message the client could not decode, if this
-- delivery still holds it (its member <receipt><id> is in INFLIGHT). Returns 0/1. O(log n).
local id = ARGV[2]
if redis.call('ZREM', INFLIGHT, member(tonumber(ARGV[3]), id)) == 0 then
    return 0
end
local state, attempts, _, tail, legacy = get_meta(id)
bury(id, in_flight_attempt(state, attempts), ARGV[4], now_ms(), tail, legacy)
return 1
