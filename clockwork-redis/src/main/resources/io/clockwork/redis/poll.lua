-- poll: ARGV maxAttempts, sweep limit, visibility ms, n. Returns expired deliveries (at most `sweep limit`) to the
-- schedule, then takes up to n of the earliest messages due by the server's clock, in order, and puts them in
-- flight (n: how many pollers of one client were waiting for this partition at once, or a batch poll's size).
-- Returns {k taken, ms until the next event or -1 (only when k < n), client must signal 0/1, messages lost,
--          then member <seq><id> and META value "D <attempts> <seq>:<payload>" for each message taken}: the client
--          reads the delivery's attempt (attempts + 1), receipt (seq) and payload from the META value itself.
-- Messages lost are those found with part of their state evicted (see lose() in common.lua), by the sweep or among
-- the heads (no META value): each is dropped and counted, and the others are taken as usual. A member whose META
-- value carries another sequence is stale (its id was offered again after its state was evicted): the client tells
-- by comparing the two sequences, which costs nothing here, and drops it with kill.lua, which counts it lost.
-- Taking a message moves its member from PENDING to INFLIGHT and changes nothing else: its META value stays (see
-- common.lua), and its receipt is the sequence it was scheduled under (every scheduling takes a new one and a
-- scheduled message is delivered at most once, so a receipt belongs to one delivery). A legacy META value (see
-- parse_meta) is rewritten in the new form first.
-- O((n + sweep limit) log n); commands per call besides the sweep: TIME, ZRANGEBYSCORE, and if any is due one
-- ZREMRANGEBYRANK (the k taken are the first k by rank), one HMGET and one ZADD for all of them.
local now = now_ms()
sweep(now, tonumber(ARGV[2]))
local n = tonumber(ARGV[4])
local heads = redis.call('ZRANGEBYSCORE', PENDING, '-inf', now, 'LIMIT', 0, n + 1)
local k = math.min(n, #heads)
local result = {0, -1, 0, 0}
local taken = 0
if k > 0 then
    local ids = {}
    for i = 1, k do
        ids[i] = id_of(heads[i])
    end
    redis.call('ZREMRANGEBYRANK', PENDING, 0, k - 1)
    local metas = redis.call('HMGET', META, unpack(ids))
    local visible_until = string.format('%d', now + tonumber(ARGV[3])) -- one conversion for all k scores
    local scored = {}
    for i = 1, k do
        local v = metas[i]
        if v then
            if not string.find(v, ':', 1, true) then
                -- Legacy (no ':' in it at all): move its payload into META now, under the same sequence.
                local state, attempts, seq, tail = parse_meta(ids[i], v)
                set_meta(ids[i], state, attempts, seq, tail, true)
                v = redis.call('HGET', META, ids[i])
            end
            taken = taken + 1
            scored[2 * taken - 1] = visible_until
            scored[2 * taken] = heads[i]
            result[2 * taken + 3] = heads[i]
            result[2 * taken + 4] = v
        else
            lose()
        end
    end
    if taken > 0 then
        redis.call('ZADD', INFLIGHT, unpack(scored))
    end
end
result[1] = taken
result[4] = lost_now
if taken < n then
    result[2] = next_event_in(now)
elseif #heads > k then
    -- More is ready: pass the wake-up on so another blocked poller takes it.
    result[3] = signal()
end
return result
