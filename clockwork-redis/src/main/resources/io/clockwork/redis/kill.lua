-- kill: ARGV maxAttempts, id, receipt, reason. Buries a delivered message the client could not decode, if this
-- delivery still holds it (its member <receipt><id> is in INFLIGHT). Returns 0/1; a message whose state was evicted
-- is counted lost instead. O(log n).
local id = ARGV[2]
local receipt = tonumber(ARGV[3])
if redis.call('ZREM', INFLIGHT, member(receipt, id)) == 0 then
    return 0
end
local state, attempts, seq, tail, legacy = get_meta(id)
if seq ~= receipt then
    lose()
    return 0
end
bury(id, in_flight_attempt(state, attempts), ARGV[4], now_ms(), tail, legacy)
return 1
