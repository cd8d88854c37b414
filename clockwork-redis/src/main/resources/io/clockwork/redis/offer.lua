-- offer: ARGV maxAttempts, then (id, payload, delay ms) for each of one or more messages (a group commit of
-- concurrent offers to this partition). Returns {added 0/1 per message..., client must signal 0/1}.
-- O(m log n) for m messages. A message with a positive delay is due at the server's clock rounded up to the next
-- millisecond plus the delay, so never early; with no delay it is due at once.
local floor, ceil = now_floor_ceil()
local result = {}
local wake = false
local head_read = false
local head_due = nil
for i = 2, #ARGV, 3 do
    local id = ARGV[i]
    if redis.call('HEXISTS', META, id) == 1 then
        result[#result + 1] = 0
    else
        local due = due_at(tonumber(ARGV[i + 2]), floor, ceil)
        if not wake then
            if due <= floor then
                wake = true
            else
                -- Read lazily: messages added before without waking sort after the old head, so it is still it.
                if not head_read then
                    local head = redis.call('ZRANGE', PENDING, 0, 0, 'WITHSCORES')
                    head_read = true
                    if head[2] then
                        head_due = tonumber(head[2])
                    end
                end
                wake = head_due == nil or due < head_due
            end
        end
        local seq = redis.call('INCR', SEQ)
        redis.call('ZADD', PENDING, due, member(seq, id))
        set_meta(id, 'D', 0, seq)
        redis.call('HSET', PAYLOAD, id, ARGV[i + 1])
        result[#result + 1] = 1
    end
end
if wake then
    result[#result + 1] = signal()
else
    result[#result + 1] = 0
end
return result
