-- offer: ARGV maxAttempts, id, payload, delay ms. Returns {added 0/1, client must signal 0/1}. O(log n).
local id = ARGV[2]
if redis.call('HEXISTS', META, id) == 1 then
    return {0, 0}
end
local now = now_ms()
redis.call('HSET', PAYLOAD, id, ARGV[3])
if schedule(id, 0, now + tonumber(ARGV[4]), now) then
    return {1, signal()}
end
return {1, 0}
