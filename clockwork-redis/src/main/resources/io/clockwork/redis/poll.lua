--[[
  poll: returns expired deliveries to the schedule (at most `sweep limit`), then takes up to n of the earliest
  messages due by the server's clock, in order, and puts them in flight (n: how many pollers of one client wait for
  this partition at once, or a batch poll's size). Taking a message moves its member from PENDING to INFLIGHT and
  changes nothing else: its META value stays (see meta.lua), and its receipt is the sequence it was scheduled under
  (every scheduling takes a new one and a scheduled message is delivered at most once, so a receipt belongs to one
  delivery).
  Messages lost are those found with part of their state evicted (see lost.lua), by the sweep or among the heads (no
  META value): each is dropped and counted, and the others are taken as usual. A member whose META value carries
  another sequence is stale (its id was offered again after its state was evicted): the client tells by comparing
  the two sequences, which costs nothing here, and drops it with kill.lua, which counts it lost.

  KEYS[1] pending   ZSET   due messages are taken from its head; the sweep reschedules into it
  KEYS[2] inflight  ZSET   the taken members, scored by visibility deadline; the sweep reads and removes from it
  KEYS[3] dead      ZSET   the sweep buries into it
  KEYS[4] meta      HASH   the taken messages' values are read; the sweep rewrites those it moves
  KEYS[5] reason    HASH   written by the sweep for what it buries
  KEYS[6] seq       STRING incremented by the sweep
  KEYS[7] lost      STRING incremented per message found with its state evicted
  KEYS[8] counters  HASH   delivered incremented by the messages taken; retried and dead by the sweep (one HINCRBY
                           each at most)
  KEYS[9] paused    STRING read (with ORDERED, ready.lua) by one MGET: while it exists nothing is taken (pause.lua)
  KEYS[10] signal   LIST   pushed to pass a wake-up on when more is ready (absent in a cluster's other partitions)
  (REVOKED, the partition's <prefix>revoked: the sweep records the deliveries it expires, revoked.lua)

  ARGV[1]           settings "<maxAttempts> <dead max age ms> <dead max count> <compactAfter ms>": maxAttempts
  ARGV[2]           sweep limit: at most this many expired deliveries are handled
  ARGV[3]           visibility ms: a taken message comes back after this long unless acked or nacked
  ARGV[4]           n: at most this many messages are taken

  Reply: {taken, nextEventMs, clientMustSignal, lost, member1, meta1, ..., member_taken, meta_taken}:
         taken is k, the number of messages taken; nextEventMs the ms until the partition's next event (a due message
         or an expiring delivery; -1 if none), only when k < n, else -1; clientMustSignal 1 when more is ready than
         taken and SIGNAL is in another slot; lost how many messages this call dropped; then per message taken its
         member <seq><id> and its META value "D <attempts> <seq><tail>" (see meta.lua), from which the client
         reads the delivery's attempt (attempts + 1), receipt (seq) and payload.
  Cost: O((n + sweep limit) log n); commands besides the sweep: TIME, MGET, ZRANGEBYSCORE, and if any is due one
        ZREMRANGEBYRANK (the k taken are the first k by rank), one HMGET, one ZADD and one HINCRBY for all of them.
        A partition ordered by priority (ready.lua) also reads READY's head, and moves what fell due (at most
        MOVE_LIMIT, O(MOVE_LIMIT log n)) with one HMGET, one ZREMRANGEBYRANK and one ZADD.
]]
local PENDING = KEYS[1]
local INFLIGHT = KEYS[2]
local DEAD = KEYS[3]
local META = KEYS[4]
local REASON = KEYS[5]
local SEQ = KEYS[6]
local LOST = KEYS[7]
local COUNTERS = KEYS[8]
local PAUSED = KEYS[9]
local SIGNAL = KEYS[10]
-- include: take_due
return take_due(tonumber(ARGV[4]), ARGV[2], tonumber(ARGV[3]))
