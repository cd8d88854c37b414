-- nack: ARGV maxAttempts, id, receipt, retry delay ms. If this delivery still holds the message (its member
-- <receipt><id> is in INFLIGHT), schedules it again or, after its last allowed attempt, buries it.
-- Returns {held 0/1, client must signal 0/1}; a message whose state was evicted is counted lost and not held.
-- O(log n).
local id = ARGV[2]
local receipt = tonumber(ARGV[3])
if redis.call('ZREM', INFLIGHT, member(receipt, id)) == 0 then
    return {0, 0}
end
local state, attempts, seq, tail, legacy = get_meta(id)
if seq ~= receipt then
    lose()
    return {0, 0}
end
attempts = in_flight_attempt(state, attempts)
local now, ceil = now_floor_ceil()
if attempts >= MAX_ATTEMPTS then
    bury(id, attempts, max_attempts_reason(), now, tail, legacy)
    return {1, 0}
end
if schedule(id, attempts, due_at(tonumber(ARGV[4]), now, ceil), now, tail, legacy) then
    return {1, signal()}
end
return {1, 0}
