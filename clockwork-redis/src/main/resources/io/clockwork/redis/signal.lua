-- signal: KEYS[1] the queue's signal list. Wakes one blocked poller; the list never holds more than one token. O(1).
redis.call('LPUSH', KEYS[1], '1')
redis.call('LTRIM', KEYS[1], 0, 0)
return 1
