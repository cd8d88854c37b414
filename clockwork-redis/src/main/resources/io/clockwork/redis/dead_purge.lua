-- dead_purge: ARGV maxAttempts, batch. Deletes up to `batch` dead letters, oldest first; the client repeats until 0.
-- Returns how many were deleted. O(batch log n).
local dead = redis.call('ZPOPMIN', DEAD, tonumber(ARGV[2]))
for i = 1, #dead, 2 do
    local id = id_of(dead[i])
    redis.call('HDEL', META, id)
    redis.call('HDEL', PAYLOAD, id) -- a legacy dead letter's payload (see parse_meta); a no-op otherwise
    redis.call('HDEL', REASON, id)
end
return #dead / 2
