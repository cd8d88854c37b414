-- exists: whether this partition has ever held a message. Its sequence counter is created by the first offer and
-- never deleted, so an emptied queue still exists and a mistyped name does not. Returns 1 or 0. O(1).
return redis.call('EXISTS', SEQ)
