package io.clockwork.redis;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.spi.Delay;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisFuture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * The queue's script calls, each returning a typed reply: the one place that knows each script's arguments and reads
 * its reply by position (both as its header in {@code src/main/resources/io/clockwork/redis/*.lua} says). Offers,
 * acks and single polls of one partition go through a group commit ({@link Batcher}): concurrent calls share one
 * script call, each getting its own reply. Thread-safe.
 */
final class QueueScripts {

    /** Most expired deliveries one script call returns to the schedule. */
    static final int SWEEP_LIMIT = 100;
    /** Most keys one {@code cold_drop.lua} call deletes. */
    static final int DROP_LIMIT = 1_000;
    /** Most dead letters one purge call deletes. */
    static final int PURGE_BATCH = 1000;
    /** Most offers or acks one group-commit script call carries. */
    private static final int MAX_GROUP = 64;
    /** Most group-commit script calls of one kind in flight per partition (see {@link Batcher}). */
    static final int MAX_IN_FLIGHT = 4;
    private static final byte[] ONE = arg(1);
    /** offer.lua's fresh flags: every id needs the dedup check / none does (see offer.lua). Also "no shared delay". */
    private static final byte[] CHECK_ALL = new byte[0];
    private static final byte[] FRESH_ALL = {'*'};
    /**
     * Where an async call whose first attempt failed is retried: off the connection's I/O thread, because retries
     * sleep between attempts and may wait for a reconnect. A few daemon threads for the whole JVM, created when first
     * needed, so an outage with thousands of calls in flight queues their retries instead of starting a thread each.
     */
    private static final java.util.concurrent.Executor RETRIES = java.util.concurrent.Executors.newFixedThreadPool(4,
            r -> {
                Thread t = new Thread(r, "clockwork-redis-retry");
                t.setDaemon(true);
                return t;
            });

    /** A reply of {done 0/1, client must signal 0/1}: reschedule, nack, release, requeue. */
    record Flagged(boolean done, boolean mustSignal) {
        static Flagged of(List<Object> r) {
            return new Flagged((Long) r.get(0) == 1L, (Long) r.get(1) == 1L);
        }
    }

    /**
     * offer.lua's reply for one message: its code (0 kept, 1 added, 2 replaced, 3 extended, 4 in flight, 5 dead: see
     * offer.lua), whether the client must pass a wake-up on, and the place of a placed message (null if not placed).
     */
    record Stored(int code, boolean mustSignal, String place) {
        static Stored of(List<Object> r) {
            return new Stored(Math.toIntExact((Long) r.get(0)), (Long) r.get(1) == 1L, placeOf(r, 2));
        }

        /**
         * @param id the id the message was offered with
         * @return the message's id: {@code id}, with its place appended if it was placed ({@link IdGenerator#placed})
         */
        String idOf(String id) {
            return place == null ? id : IdGenerator.placed(id, place);
        }
    }

    /** @return element {@code i} of an offer reply as a place, or null if absent or empty (not placed) */
    private static String placeOf(List<Object> r, int i) {
        if (r.size() <= i) {
            return null;
        }
        byte[] place = (byte[]) r.get(i);
        return place.length == 0 ? null : new String(place, StandardCharsets.US_ASCII);
    }

    /** offer.lua's code of an added message. */
    static final int ADDED = 1;

    /** offer.lua's per-message flags (see its header): a fresh id, or the conflict policy of a checked one. */
    static final byte FRESH = '1';
    static final byte KEEP = '0';
    static final byte REPLACE = 'r';
    static final byte EXTEND = 'e';

    /** A message poll.lua put in flight: its in-flight member and its META value. */
    record InFlight(byte[] member, byte[] meta) {
    }

    /**
     * poll.lua's reply.
     *
     * @param taken       the messages put in flight, in order
     * @param nextEventMs if fewer were taken than asked, the ms until the partition's next event (-1: none); else -1
     * @param mustSignal  whether the client must pass a wake-up on (more is ready, and the signal is in another slot)
     * @param lost        how many messages this call found with part of their state evicted, and dropped
     */
    record Polled(List<InFlight> taken, long nextEventMs, boolean mustSignal, long lost) {
        static Polled of(List<Object> r) {
            return of(r, 0);
        }

        /** Reads poll.lua's reply where it starts at index {@code from} of r (ack_poll.lua puts ack codes first). */
        static Polled of(List<Object> r, int from) {
            int k = Math.toIntExact((Long) r.get(from));
            List<InFlight> taken = new ArrayList<>(k);
            for (int i = 0; i < k; i++) {
                int at = from + 4 + 2 * i;
                taken.add(new InFlight((byte[]) r.get(at), (byte[]) r.get(at + 1)));
            }
            return new Polled(taken, (Long) r.get(from + 1), (Long) r.get(from + 2) == 1L, (Long) r.get(from + 3));
        }
    }

    /** stats.lua's reply: counts by state, the ms until the next delayed message is due (-1: none), lost. */
    record Counts(long delayed, long ready, long inFlight, long dead, long nextDueMs, long lost, long trimmed) {
        static Counts of(List<Object> r) {
            return new Counts((Long) r.get(0), (Long) r.get(1), (Long) r.get(2), (Long) r.get(3), (Long) r.get(4),
                    (Long) r.get(5), (Long) r.get(6));
        }
    }

    /**
     * One element of dead_list.lua's reply, its tail read into headers and payload; {@code payload} is null (and
     * {@code headers} empty) if its tail was evicted.
     */
    record Dead(String id, byte[] payload, Map<String, String> headers, int attempts, String reason, long diedAtMs) {
        static List<Dead> listOf(List<Object> r) {
            List<Dead> all = new ArrayList<>(r.size() / 5);
            for (int i = 0; i < r.size(); i += 5) {
                byte[] payload = null;
                Map<String, String> headers = Map.of();
                if (r.get(i + 1) instanceof byte[] tail) {
                    Tail.Parsed t = Tail.parse(tail, 0);
                    payload = Arrays.copyOfRange(tail, t.payloadStart(), tail.length);
                    headers = t.headers();
                }
                all.add(new Dead(string(r.get(i)), payload, headers, Math.toIntExact((Long) r.get(i + 2)),
                        string(r.get(i + 3)), (Long) r.get(i + 4)));
            }
            return all;
        }
    }

    /**
     * How long {@code include/revoked.lua} remembers a revoked hold ({@code REVOKED_KEEP_MS}): a {@link AckCode#GONE}
     * is trusted only while no revocation it could miss has been forgotten (see {@link RedisDelivery#ackedIfGone}).
     */
    static final Duration REVOKED_KEEP = Duration.ofMinutes(2);

    /** ack.lua's code for one delivery. */
    enum AckCode {
        /** another delivery holds the message, or this delivery's hold was revoked (expired, cancelled) */
        NOT_HELD,
        /** deleted now */
        DELETED,
        /** the message no longer exists and this delivery's hold was never revoked: only its own ack deleted it */
        GONE,
        /** {@link #GONE}, found by a retry of the same call after an attempt whose outcome is unknown */
        GONE_AFTER_RETRY;

        static AckCode of(long code) {
            return values()[Math.toIntExact(code)];
        }

        /** @return the script's code, GONE read as GONE_AFTER_RETRY when an earlier attempt may have run */
        static AckCode of(long code, boolean uncertain) {
            AckCode c = of(code);
            return c == GONE && uncertain ? GONE_AFTER_RETRY : c;
        }
    }

    /**
     * A message as poll.lua hands it over: its META value {@code D <attempts> <seq in hex><tail>}, the tail
     * {@code [!<n>!<last error>][#<h>#<headers>]:<payload>} (see include/meta.lua and {@link Tail}), read into the
     * delivery's attempt (attempts + 1: attempts counts the deliveries before this scheduling), receipt (the
     * sequence), headers (empty without a block, the layout clients without header support write) and
     * payload.
     */
    record Taken(int attempt, long receipt, byte[] payload, Map<String, String> headers) {
        static Taken parse(byte[] v) {
            int i = 2;
            int attempts = 0;
            for (; i < v.length && v[i] != ' '; i++) {
                attempts = Math.addExact(Math.multiplyExact(attempts, 10), digit(v, i, 10));
            }
            long seq = 0;
            for (i++; i < v.length && v[i] != ':' && v[i] != '!' && v[i] != '#'; i++) {
                seq = (seq << 4) | digit(v, i, 16);
            }
            if (v.length < 4 || v[1] != ' ' || i >= v.length) {
                throw notMeta(v);
            }
            Tail.Parsed t = Tail.parse(v, i);
            return new Taken(attempts + 1, seq, Arrays.copyOfRange(v, t.payloadStart(), v.length), t.headers());
        }

        /** @return the number written in hex in {@code v[from, to)}, e.g. a member's sequence prefix */
        static long hex(byte[] v, int from, int to) {
            long n = 0;
            for (int i = from; i < to; i++) {
                n = (n << 4) | digit(v, i, 16);
            }
            return n;
        }

        private static int digit(byte[] v, int i, int radix) {
            int d = Character.digit(v[i], radix);
            if (d < 0) {
                throw notMeta(v);
            }
            return d;
        }

        private static IllegalStateException notMeta(byte[] v) {
            return new IllegalStateException("not a META value: "
                    + new String(v, 0, Math.min(v.length, 40), StandardCharsets.UTF_8));
        }
    }

    /**
     * One call of a group commit: its own per-message arguments, completed with its own reply, shaped as the reply
     * of that call alone. An offer also has its delay (sent once for the whole script call when every offer of it
     * has the same) and whether its id is fresh.
     */
    private static final class Call extends CompletableFuture<List<Object>> {
        final byte[][] args;
        final Delay delay;
        /** An offer's flag for offer.lua: {@link #FRESH}, {@link #KEEP}, {@link #REPLACE} or {@link #EXTEND}. */
        final byte flag;

        Call(Delay delay, byte flag, byte[]... args) {
            this.args = args;
            this.delay = delay;
            this.flag = flag;
        }
    }

    private final ScriptRunner runner;
    private final Connections connections;
    private final Partitions partitions;
    private final byte[] maxAttemptsArg;
    /** How long offer.lua keeps an offer call's places for its retries ({@link #placedWindow}), ms; 0: not at all. */
    private final long placedWindowMs;
    private final byte[] visibilityArg;
    private final Batcher<Call>[] offers;
    private final Batcher<Call>[] acks;
    private final Batcher<Call>[] polls;
    private final Batcher<Call>[] ackPolls;

    QueueScripts(ScriptRunner runner, Connections connections, Partitions partitions, QueueOptions<?> options,
                 Duration compactAfter) {
        this.runner = runner;
        this.connections = connections;
        this.partitions = partitions;
        this.placedWindowMs = placedWindow(Duration.ofNanos(runner.timeoutNanos()),
                Duration.ofNanos(runner.retryNanos())).toMillis();
        this.maxAttemptsArg = settingsArg(options, partitions.count(), compactAfter,
                Duration.ofMillis(placedWindowMs));
        this.visibilityArg = arg(options.visibilityTimeout().toMillis());
        this.offers = batchers(MAX_GROUP, batch -> offerArgs(batch), Script.OFFER, QueueScripts::splitOffers);
        this.acks = batchers(MAX_GROUP, this::ackGroupArgs, Script.ACK, QueueScripts::splitAcks);
        this.polls = batchers(Integer.MAX_VALUE, batch -> pollArgs(batch.size()), Script.POLL,
                QueueScripts::splitPolls);
        this.ackPolls = batchers(MAX_GROUP, this::ackPollArgs, Script.ACK_POLL, QueueScripts::splitAckPolls);
    }

    /** Loads every script into the server, so that the first calls need no {@code SCRIPT LOAD}. */
    void preload() {
        runner.preload();
    }

    /**
     * ARGV[1] of every script of a partition:
     * {@code "<maxAttempts> <dead-letter max age ms> <max count> <compactAfter ms> <placed window ms>"}, the count
     * the queue's bound divided among its partitions, rounded up (see {@code include/retention.lua}), compactAfter
     * -1 (never) when longer than any delay, the placed window from {@link #placedWindow} (see
     * {@code include/cold.lua}).
     */
    static byte[] settingsArg(QueueOptions<?> options, int partitions, Duration compactAfter, Duration placedWindow) {
        long count = options.deadLetterMaxCount();
        long perPartition = count / partitions + (count % partitions == 0 ? 0 : 1);
        long compact = compactAfter.compareTo(DelayedQueue.MAX_DELAY) > 0 ? -1 : compactAfter.toMillis();
        return arg(options.maxAttempts() + " " + options.deadLetterMaxAge().toMillis() + " " + perPartition + " "
                + compact + " " + placedWindow.toMillis());
    }

    /**
     * How long offer.lua keeps an offer call's places for its retries (see {@code include/cold.lua}): none when
     * lost replies are not retried; else twice the longest a call and its retries can take (its first attempt's
     * command timeout, then the retries), so that a retry queued behind others still finds them.
     */
    static Duration placedWindow(Duration commandTimeout, Duration retryFor) {
        return retryFor.isZero() ? Duration.ZERO : commandTimeout.plus(retryFor).multipliedBy(2);
    }

    /** @return ARGV[1] of this queue's partition scripts ({@link #settingsArg}) */
    byte[] settingsArg() {
        return maxAttemptsArg;
    }

    /** @return the runner every script call of this queue goes through */
    ScriptRunner runner() {
        return runner;
    }

    /** @return how long operations retry after transient failures, in nanoseconds */
    long retryNanos() {
        return runner.retryNanos();
    }

    /** @return how many times {@code SCRIPT LOAD} was sent */
    long loads() {
        return runner.loads();
    }

    /**
     * Offers one message through its partition's group commit.
     *
     * @param tail the message's tail ({@link Tail#of})
     * @param flag {@link #FRESH} for an id just generated (its first attempt skips the dedup read; a retry checks
     *             it), else the conflict policy: {@link #KEEP}, {@link #REPLACE} or {@link #EXTEND}
     */
    Stored offer(int p, String id, byte[] tail, Delay delay, byte flag) {
        Call call = new Call(delay, flag, arg(id), tail);
        byte[][] alone = {maxAttemptsArg, arg(delay.millis()), retryFlags(flag), call.args[0], call.args[1]};
        return Stored.of(grouped("offer", runner.retryNanos(), offers[p], call, Script.OFFER, p, alone).value());
    }

    /** offer.lua's flags for one message retried alone: a fresh id is checked, as any id with policy keep. */
    private static byte[] retryFlags(byte flag) {
        return flag == FRESH || flag == KEEP ? CHECK_ALL : new byte[] {flag};
    }

    /**
     * Acks one delivery through its partition's group commit.
     *
     * @return DELETED, NOT_HELD, GONE, or GONE_AFTER_RETRY when a retry of this call found the message gone (its
     *         first attempt, whose reply was lost, may have deleted it)
     */
    AckCode ack(int p, String id, long receipt) {
        Call call = new Call(null, KEEP, ackArgs(id, receipt));
        byte[][] alone = {maxAttemptsArg, call.args[0], call.args[1]};
        ScriptRunner.Reply<List<Object>> r = grouped("ack", runner.retryNanos(), acks[p], call, Script.ACK, p, alone);
        return AckCode.of((Long) r.value().get(0), r.uncertain());
    }

    /**
     * Takes one message through the partition's group commit (concurrent pollers of this client share one call).
     *
     * @param retry whether to retry transient failures (false where the poll has other partitions to go to)
     */
    Polled pollOne(int p, boolean retry) {
        Call call = new Call(null, KEEP);
        List<Object> r = grouped("poll", retry ? runner.retryNanos() : 0, polls[p], call, Script.POLL, p,
                pollArgs(1)).value();
        return Polled.of(r);
    }

    /** An ack's outcome and what the same script call took: {@link #ackPoll}'s reply. */
    record AckPolled(AckCode code, Polled polled) {
    }

    /**
     * Acks one delivery and takes at most one due message of the same partition, through the partition's group
     * commit of such calls (concurrent handlers share one ack_poll.lua call). Retried alone after a transient
     * failure: the receipt makes the ack's retry harmless, and a message the lost attempt took comes back after the
     * visibility timeout.
     */
    AckPolled ackPoll(int p, String id, long receipt) {
        Call call = new Call(null, KEEP, ackArgs(id, receipt));
        byte[][] alone = {maxAttemptsArg, arg(SWEEP_LIMIT), visibilityArg, ONE, call.args[0], call.args[1]};
        ScriptRunner.Reply<List<Object>> r = grouped("ackAndPoll", runner.retryNanos(), ackPolls[p], call,
                Script.ACK_POLL, p, alone);
        return new AckPolled(AckCode.of((Long) r.value().get(0), r.uncertain()), Polled.of(r.value(), 1));
    }

    /** Takes up to n messages in one call of its own. */
    Polled pollMany(int p, int n, boolean retry) {
        byte[][] args = pollArgs(n);
        List<Object> r = retry ? runner.run("poll", Script.POLL, partitions.keys(p), args)
                : runner.runOnce("poll", Script.POLL, partitions.keys(p), args);
        return Polled.of(r);
    }

    /**
     * @param operation what the caller does, for errors: {@code poll} (an undecodable payload) or {@code deadLetter}
     * @return whether the message was buried (this delivery still held it)
     */
    boolean kill(String operation, int p, String id, long receipt, String reason) {
        Long r = runner.run(operation, Script.KILL, partitions.keys(p), maxAttemptsArg, arg(id), arg(receipt),
                arg(reason));
        return r == 1L;
    }

    /** @return whether this delivery still holds its message, now until the server's clock plus visibilityMs */
    boolean extend(int p, String id, long receipt, long visibilityMs) {
        Long r = runner.run("extend", Script.EXTEND, partitions.keys(p), maxAttemptsArg, arg(id), arg(receipt),
                arg(visibilityMs));
        return r == 1L;
    }

    /** Hands a delivery's message back, due now, its attempts unchanged. */
    Flagged release(int p, String id, long receipt) {
        return Flagged.of(runner.run("release", Script.RELEASE, partitions.keys(p), maxAttemptsArg, arg(id),
                arg(receipt)));
    }

    boolean cancel(int p, String id) {
        Long r = runner.run("cancel", Script.CANCEL, partitions.keys(p), maxAttemptsArg, arg(id));
        return r == 1L;
    }

    Flagged reschedule(int p, String id, Delay delay) {
        return Flagged.of(runner.run("reschedule", Script.RESCHEDULE, partitions.keys(p), maxAttemptsArg, arg(id),
                arg(delay.millis())));
    }

    /** @param error the last error to record, or null to keep the one recorded (if any) */
    Flagged nack(int p, String id, long receipt, Delay retryDelay, String error) {
        byte[][] args = error == null
                ? new byte[][] {maxAttemptsArg, arg(id), arg(receipt), arg(retryDelay.millis())}
                : new byte[][] {maxAttemptsArg, arg(id), arg(receipt), arg(retryDelay.millis()), arg(error)};
        return Flagged.of(runner.run("nack", Script.NACK, partitions.keys(p), args));
    }

    Flagged requeueDead(int p, String id) {
        return Flagged.of(runner.run("requeueDead", Script.DEAD_REQUEUE, partitions.keys(p), maxAttemptsArg,
                arg(id)));
    }

    /** @return how many dead letters were deleted, at most {@link #PURGE_BATCH} */
    long purgeDead(int p) {
        return runner.<Long>run("purgeDead", Script.DEAD_PURGE, partitions.keys(p), maxAttemptsArg, arg(PURGE_BATCH));
    }

    List<Dead> deadLetters(int p, int limit) {
        return Dead.listOf(runner.run("deadLetters", Script.DEAD_LIST, partitions.keys(p), maxAttemptsArg,
                arg(SWEEP_LIMIT), arg(limit)));
    }

    /** The fields of the counters hash ({@code include/counters.lua}), in {@link QueueCounters}' order. */
    private static final byte[][] COUNTER_FIELDS = {arg("offered"), arg("delivered"), arg("acked"), arg("retried"),
        arg("dead")};

    /**
     * Reads partition p's event counters with one {@code HMGET}; a field never incremented reads as 0.
     *
     * @throws RedisQueueException if Redis fails
     */
    QueueCounters counters(int p, String queueName) {
        List<KeyValue<byte[], byte[]>> r;
        try {
            r = runner.await(connections.commands().hmget(partitions.keys(p)[KeyLayout.COUNTERS], COUNTER_FIELDS));
        } catch (RuntimeException e) {
            throw new RedisQueueException("queue '" + queueName + "' on " + connections.where()
                    + ": reading the counters of partition " + p + " failed: " + e.getMessage(), e);
        }
        long[] n = new long[COUNTER_FIELDS.length];
        for (int i = 0; i < n.length; i++) {
            KeyValue<byte[], byte[]> kv = r.get(i);
            n[i] = kv.hasValue() ? Long.parseLong(new String(kv.getValue(), StandardCharsets.US_ASCII)) : 0L;
        }
        return new QueueCounters(n[0], n[1], n[2], n[3], n[4]);
    }

    Counts stats(int p) {
        return Counts.of(runner.run("stats", Script.STATS, partitions.keys(p), maxAttemptsArg, arg(SWEEP_LIMIT)));
    }

    boolean exists(int p) {
        Long r = runner.run("exists", Script.EXISTS, partitions.keys(p), maxAttemptsArg);
        return r != null && r > 0;
    }

    /**
     * Deletes partition p's compact store but its state ({@code cold_drop.lua}), at most {@link #DROP_LIMIT} keys
     * per script call.
     *
     * @return how many keys existed
     * @throws RedisQueueException if Redis fails
     */
    long dropCompactStore(int p, String queueName) {
        long deleted = 0;
        try {
            List<Long> r;
            do {
                r = runner.run("cold_drop", Script.COLD_DROP, partitions.keys(p), maxAttemptsArg, arg(DROP_LIMIT));
                deleted += r.get(1);
            } while (r.get(0) > 0);
        } catch (RuntimeException e) {
            throw new RedisQueueException("queue '" + queueName + "' on " + connections.where()
                    + ": delete of partition " + p + " failed: " + e.getMessage(), e);
        }
        return deleted;
    }

    /**
     * Deletes every key of partition p ({@link KeyLayout#allKeys}).
     *
     * @return how many keys existed
     * @throws RedisQueueException if Redis fails
     */
    long deletePartition(int p, String queueName) {
        try {
            return runner.<Long>await(connections.commands().del(KeyLayout.allKeys(queueName, p)));
        } catch (RuntimeException e) {
            throw new RedisQueueException("queue '" + queueName + "' on " + connections.where()
                    + ": delete of partition " + p + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Offers a batch: one offer.lua call per partition the batch touches, all sent before any reply is awaited.
     *
     * @param fresh  whether the ids were just generated: their first attempt skips the dedup read
     * @param signal called for each partition that asks the client to pass a wake-up on, as soon as it answers
     *               (so that what the partitions that answered stored wakes pollers even if another fails)
     * @param ids    the ids; a placed message's is completed in place with its place ({@link IdGenerator#placed})
     * @return per message, 1 if added, 0 if its id was known
     * @throws RedisQueueException if a partition failed (after the others were awaited, so their work is done)
     */
    long[] offerAll(String[] ids, byte[][] tails, Delay delay, boolean fresh, Runnable signal) {
        byte[] delayArg = arg(delay.millis());
        byte[][] check = {maxAttemptsArg, delayArg, CHECK_ALL};
        return perPartition("offerAll", Script.OFFER, ids,
                members -> fresh ? new byte[][] {maxAttemptsArg, delayArg, freshAll(ids, members)} : check,
                members -> check,
                i -> new byte[][] {arg(ids[i]), tails[i]}, signal);
    }

    /**
     * Offers a batch of messages that may differ in delay and flag: one offer.lua call per partition, all sent at
     * once, each carrying its members' flags (and their delays unless all are equal).
     *
     * @param flags per message, {@link #FRESH} or its conflict policy (see {@link #offer})
     * @param ids   the ids; a placed message's is completed in place with its place ({@link IdGenerator#placed})
     * @return per message, offer.lua's code
     * @throws RedisQueueException if a partition failed (after the others were awaited, so their work is done)
     */
    long[] offerMessages(String[] ids, byte[][] tails, Delay[] delays, byte[] flags, Runnable signal) {
        return collect(sendMessages(ids, tails, delays, flags, signal));
    }

    /** {@link #offerMessages} without waiting: completes when every partition's call has answered (or was retried). */
    CompletableFuture<long[]> offerMessagesAsync(String[] ids, byte[][] tails, Delay[] delays, byte[] flags,
                                                 Runnable signal) {
        return collectAsync(sendMessages(ids, tails, delays, flags, signal));
    }

    private Sent sendMessages(String[] ids, byte[][] tails, Delay[] delays, byte[] flags, Runnable signal) {
        boolean common = true;
        for (Delay d : delays) {
            common &= d.millis() == delays[0].millis();
        }
        byte[] shared = common && delays.length > 0 ? arg(delays[0].millis()) : CHECK_ALL;
        boolean perMessageDelay = !common;
        return sendAll("offerAll", Script.OFFER, ids,
                members -> {
                    byte[] f = flagsOf(members, flags, false);
                    return new byte[][] {maxAttemptsArg, shared, f == FRESH_ALL && !perMessageDelay
                            ? freshAll(ids, members) : f};
                },
                members -> new byte[][] {maxAttemptsArg, shared, flagsOf(members, flags, true)},
                i -> perMessageDelay ? new byte[][] {arg(ids[i]), tails[i], arg(delays[i].millis())}
                        : new byte[][] {arg(ids[i]), tails[i]}, signal);
    }

    /**
     * offer.lua's flags for a call whose ids are all fresh: {@code '*'}, followed, when the queue keeps places for
     * retries ({@link #placedWindow}), by the ids' counters ({@link IdGenerator#counterRuns}), with which offer.lua
     * records the call's places by message number instead of reading each id.
     */
    private byte[] freshAll(String[] ids, int[] members) {
        String runs = placedWindowMs > 0 ? IdGenerator.counterRuns(ids, members) : null;
        return runs == null ? FRESH_ALL : arg("*" + runs);
    }

    /** offer.lua's flags for a partition's members; on a retry, fresh ids are checked. */
    private static byte[] flagsOf(int[] members, byte[] flags, boolean retry) {
        byte[] f = new byte[members.length];
        boolean allFresh = !retry;
        boolean allKeep = true;
        for (int j = 0; j < f.length; j++) {
            byte flag = flags[members[j]];
            f[j] = retry && flag == FRESH ? KEEP : flag;
            allFresh &= f[j] == FRESH;
            allKeep &= f[j] == KEEP;
        }
        return allFresh ? FRESH_ALL : allKeep ? CHECK_ALL : f;
    }

    /**
     * Acks a batch: one ack.lua call per partition, all sent at once.
     *
     * @return per delivery, its {@link AckCode} ordinal, GONE found by a retry reported as GONE_AFTER_RETRY
     */
    long[] ackAll(String[] ids, long[] receipts) {
        byte[][] head = {maxAttemptsArg};
        return perPartition("ackAll", Script.ACK, ids, members -> head, members -> head,
                i -> ackArgs(ids[i], receipts[i]), null);
    }

    /**
     * {@link #offer} without waiting: completes on the connection's I/O thread when the group commit answers; if that
     * attempt fails, the call is retried alone as the blocking path retries it, on {@link #RETRIES}.
     */
    CompletableFuture<Stored> offerAsync(int p, String id, byte[] tail, Delay delay, byte flag) {
        Call call = new Call(delay, flag, arg(id), tail);
        byte[][] alone = {maxAttemptsArg, arg(delay.millis()), retryFlags(flag), call.args[0], call.args[1]};
        offers[p].submit(call);
        return settled("offer", call, Script.OFFER, p, alone).thenApply(r -> Stored.of(r.value()));
    }

    /** {@link #ack} without waiting, as {@link #offerAsync}. */
    CompletableFuture<AckCode> ackAsync(int p, String id, long receipt) {
        Call call = new Call(null, KEEP, ackArgs(id, receipt));
        byte[][] alone = {maxAttemptsArg, call.args[0], call.args[1]};
        acks[p].submit(call);
        return settled("ack", call, Script.ACK, p, alone).thenApply(r -> AckCode.of((Long) r.value().get(0),
                r.uncertain()));
    }

    /** {@link #cancel} without waiting, as {@link #offerAsync}. */
    CompletableFuture<Boolean> cancelAsync(int p, String id) {
        byte[][] args = {maxAttemptsArg, arg(id)};
        CompletableFuture<Long> first;
        try {
            first = connections.commands().<Long>evalsha(Script.CANCEL.sha(), Script.CANCEL.output(),
                    partitions.keys(p), args).toCompletableFuture();
        } catch (RuntimeException e) {
            first = CompletableFuture.failedFuture(e);
        }
        return settled("cancel", first, Script.CANCEL, p, args).thenApply(r -> r.value() == 1L);
    }

    /** {@link #offerAll} without waiting: completes when every partition's call has answered (or was retried). */
    CompletableFuture<long[]> offerAllAsync(String[] ids, byte[][] tails, Delay delay, boolean fresh,
                                            Runnable signal) {
        byte[] delayArg = arg(delay.millis());
        byte[][] check = {maxAttemptsArg, delayArg, CHECK_ALL};
        return collectAsync(sendAll("offerAll", Script.OFFER, ids,
                members -> fresh ? new byte[][] {maxAttemptsArg, delayArg, freshAll(ids, members)} : check,
                members -> check, i -> new byte[][] {arg(ids[i]), tails[i]}, signal));
    }

    /**
     * {@link #collect} once every call of the batch has answered: on the thread of the last answer when all
     * succeeded, else on {@link #RETRIES}, where failed partitions retry alone.
     */
    private CompletableFuture<long[]> collectAsync(Sent batch) {
        CompletableFuture<?>[] calls = batch.calls().stream().filter(java.util.Objects::nonNull)
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(calls).handle((r, e) -> e == null
                ? CompletableFuture.completedFuture(collect(batch))
                : CompletableFuture.supplyAsync(() -> collect(batch), RETRIES)).thenCompose(f -> f);
    }

    /**
     * A call's reply: at once (on the thread that completed it) when its first attempt succeeded; else retried alone
     * with {@code alone} by {@link ScriptRunner#runAfter} on {@link #RETRIES}, whose retries may sleep. The first
     * attempt gets the command timeout as a blocking call does: a call still waiting then fails over to the retries
     * (and a batched call not yet sent is never sent).
     */
    private <T> CompletableFuture<ScriptRunner.Reply<T>> settled(String operation, CompletableFuture<T> first,
                                                                 Script script, int p, byte[][] alone) {
        first.orTimeout(runner.timeoutNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        return first.handle((r, e) -> e == null
                ? CompletableFuture.completedFuture(new ScriptRunner.Reply<>(r, false))
                : CompletableFuture.supplyAsync(() -> runner.<T>runAfter(operation, runner.retryNanos(),
                        () -> runner.await(first), script, partitions.keys(p), alone), RETRIES))
                .thenCompose(f -> f);
    }

    /**
     * Runs a batch as one script call per partition, all sent before any reply is awaited.
     *
     * @param signal null if the script's reply has no "must signal" flag after the codes; else called per
     *               partition whose flag is set
     * @return each message's reply code, in batch order
     */
    private long[] perPartition(String operation, Script script, String[] ids, Head head,
                                Head retryHead, IntFunction<byte[][]> perMessage, Runnable signal) {
        return collect(sendAll(operation, script, ids, head, retryHead, perMessage, signal));
    }

    /** The arguments before the per-message ones of a partition's call, given the partition's members (indexes). */
    private interface Head {
        byte[][] of(int[] members);
    }

    /**
     * A batch's script calls, one per partition it touches, sent; {@link #collect} reads their replies. A
     * partition's retry sends its arguments with {@code retryHeads[p]} in place of the head it was sent with.
     */
    private record Sent(String operation, Script script, String[] ids, int[][] members, byte[][][] args,
                        byte[][][] retryHeads, List<CompletableFuture<List<Object>>> calls, Runnable signal) {
    }

    private Sent sendAll(String operation, Script script, String[] ids, Head headOf,
                         Head retryHeadOf, IntFunction<byte[][]> perMessage, Runnable signal) {
        int[][] members = partitions.group(ids.length, i -> ids[i]);
        int parts = members.length;
        byte[][][] args = new byte[parts][][];
        byte[][][] retryHeads = new byte[parts][][];
        List<CompletableFuture<List<Object>>> sent = new ArrayList<>(parts);
        for (int p = 0; p < parts; p++) {
            CompletableFuture<List<Object>> f = null;
            if (members[p] != null) {
                byte[][] head = headOf.of(members[p]);
                retryHeads[p] = retryHeadOf.of(members[p]);
                List<byte[]> a = new ArrayList<>(head.length + 2 * members[p].length);
                a.addAll(Arrays.asList(head));
                for (int i : members[p]) {
                    a.addAll(Arrays.asList(perMessage.apply(i)));
                }
                args[p] = a.toArray(new byte[0][]);
                try {
                    f = connections.commands().<List<Object>>evalsha(script.sha(), script.output(),
                            partitions.keys(p), args[p]).toCompletableFuture();
                } catch (RuntimeException e) {
                    f = CompletableFuture.failedFuture(e);
                }
            }
            sent.add(f);
        }
        return new Sent(operation, script, ids, members, args, retryHeads, sent, signal);
    }

    /**
     * Reads a sent batch's replies, retrying a failed partition alone as {@link ScriptRunner#runAfter} does; returns
     * at once when every call has already answered. An offer's placed messages get their ids completed in the
     * batch's id array ({@link IdGenerator#placed}).
     */
    private long[] collect(Sent batch) {
        String operation = batch.operation();
        Script script = batch.script();
        int[][] members = batch.members();
        byte[][][] args = batch.args();
        List<CompletableFuture<List<Object>>> sent = batch.calls();
        Runnable signal = batch.signal();
        int parts = members.length;
        String[] ids = batch.ids();
        long[] codes = new long[ids.length];
        RedisQueueException failure = null;
        for (int p = 0; p < parts; p++) {
            CompletableFuture<List<Object>> f = sent.get(p);
            if (f == null) {
                continue;
            }
            byte[][] retryHead = batch.retryHeads()[p];
            byte[][] retryArgs = args[p].clone();
            System.arraycopy(retryHead, 0, retryArgs, 0, retryHead.length);
            ScriptRunner.Reply<List<Object>> reply;
            try {
                reply = runner.runAfter(operation, runner.retryNanos(), () -> runner.await(f), script,
                        partitions.keys(p), retryArgs);
            } catch (RedisQueueException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
                continue;
            }
            List<Object> r = reply.value();
            for (int j = 0; j < members[p].length; j++) {
                long code = (Long) r.get(j);
                // An ack whose retry finds its message gone may have been done by its first attempt (see ack()).
                codes[members[p][j]] = code == AckCode.GONE.ordinal() && reply.uncertain()
                        && script == Script.ACK ? AckCode.GONE_AFTER_RETRY.ordinal() : code;
            }
            if (signal != null && (Long) r.get(members[p].length) == 1L) {
                signal.run();
            }
            if (script == Script.OFFER) {
                partitions.offered(p);
                for (int j = 0; j < members[p].length; j++) {
                    String place = placeOf(r, members[p].length + 1 + j);
                    if (place != null) {
                        ids[members[p][j]] = IdGenerator.placed(ids[members[p][j]], place);
                    }
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return codes;
    }

    /**
     * Runs one call through its partition's group commit; after a transient failure it is retried alone with
     * {@code alone} (an id deduplicates an offer's retry; a receipt makes an ack's retry harmless; a poll's lost
     * delivery comes back after the visibility timeout).
     */
    private ScriptRunner.Reply<List<Object>> grouped(String operation, long retryNanos, Batcher<Call> batcher,
                                                     Call call, Script script, int p, byte[][] alone) {
        return runner.runAfter(operation, retryNanos, () -> {
            batcher.submit(call);
            return runner.await(call);
        }, script, partitions.keys(p), alone);
    }

    private byte[][] pollArgs(int n) {
        return new byte[][] {maxAttemptsArg, arg(SWEEP_LIMIT), visibilityArg, n == 1 ? ONE : arg(n)};
    }

    /**
     * The arguments of offer.lua for a group commit of offers (see its header): maxAttempts, the shared delay or
     * {@code ''}, the flags, then (id, tail) per offer, plus its delay if the delays differ.
     */
    private byte[][] offerArgs(List<Call> batch) {
        Delay common = batch.get(0).delay;
        int fresh = 0;
        int keep = 0;
        for (Call c : batch) {
            if (common != null && c.delay.millis() != common.millis()) {
                common = null;
            }
            fresh += c.flag == FRESH ? 1 : 0;
            keep += c.flag == KEEP ? 1 : 0;
        }
        byte[] flags;
        if (fresh == batch.size()) {
            flags = FRESH_ALL;
        } else if (keep == batch.size()) {
            flags = CHECK_ALL;
        } else {
            flags = new byte[batch.size()];
            for (int i = 0; i < flags.length; i++) {
                flags[i] = batch.get(i).flag;
            }
        }
        int width = common != null ? 2 : 3;
        byte[][] args = new byte[3 + width * batch.size()][];
        args[0] = maxAttemptsArg;
        args[1] = common != null ? arg(common.millis()) : CHECK_ALL;
        args[2] = flags;
        int at = 3;
        for (Call c : batch) {
            args[at++] = c.args[0];
            args[at++] = c.args[1];
            if (common == null) {
                args[at++] = arg(c.delay.millis());
            }
        }
        return args;
    }

    /** ack_poll.lua's arguments: poll.lua's for as many messages as calls, then (id, member) per call. */
    private byte[][] ackPollArgs(List<Call> batch) {
        byte[][] args = new byte[4 + 2 * batch.size()][];
        System.arraycopy(pollArgs(batch.size()), 0, args, 0, 4);
        int at = 4;
        for (Call c : batch) {
            args[at++] = c.args[0];
            args[at++] = c.args[1];
        }
        return args;
    }

    private byte[][] ackGroupArgs(List<Call> batch) {
        byte[][] args = new byte[1 + 2 * batch.size()][];
        args[0] = maxAttemptsArg;
        int at = 1;
        for (Call c : batch) {
            args[at++] = c.args[0];
            args[at++] = c.args[1];
        }
        return args;
    }

    /** ack.lua's arguments for one delivery: id, and its in-flight member (which proves it holds the message). */
    static byte[][] ackArgs(String id, long receipt) {
        return new byte[][] {arg(id), member(receipt, id)};
    }

    /** @return {@code <seq as 16 lowercase hex digits><id>}, the member of a message in the sorted sets */
    static byte[] member(long seq, String id) {
        String hex = Long.toHexString(seq);
        StringBuilder sb = new StringBuilder(16 + id.length());
        for (int i = hex.length(); i < 16; i++) {
            sb.append('0');
        }
        return arg(sb.append(hex).append(id).toString());
    }

    /** Splits a group commit's reply into each call's own reply, shaped as the reply of that call alone. */
    private interface Split {
        void complete(List<Call> batch, List<Object> reply);
    }

    @SuppressWarnings("unchecked")
    private Batcher<Call>[] batchers(int max, java.util.function.Function<List<Call>, byte[][]> argsOf,
                                     Script script, Split split) {
        Batcher<Call>[] result = new Batcher[partitions.count()];
        for (int p = 0; p < result.length; p++) {
            byte[][] k = partitions.keys(p);
            result[p] = new Batcher<>(max, MAX_IN_FLIGHT, batch -> {
                RedisFuture<List<Object>> f = connections.commands().evalsha(script.sha(), script.output(), k,
                        argsOf.apply(batch));
                return f.thenAccept(reply -> split.complete(batch, reply));
            });
        }
        return result;
    }

    /** Offer reply: {code per call..., must signal}; each call gets {code, must signal (the first call only)}. */
    private static void splitOffers(List<Call> batch, List<Object> reply) {
        int n = batch.size();
        Object signal = reply.get(n);
        boolean placed = reply.size() > n + 1;
        for (int i = 0; i < n; i++) {
            batch.get(i).complete(placed ? Arrays.asList(reply.get(i), i == 0 ? signal : 0L, reply.get(n + 1 + i))
                    : Arrays.asList(reply.get(i), i == 0 ? signal : 0L));
        }
    }

    /** Ack reply: {code per call...}; each call gets {code}. */
    private static void splitAcks(List<Call> batch, List<Object> reply) {
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).complete(Arrays.asList(reply.get(i)));
        }
    }

    /** Poll reply: {k, next event, must signal, lost, k x (member, META value)}; each call gets its share. */
    private static void splitPolls(List<Call> batch, List<Object> reply) {
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).complete(pollShare(reply, 0, i));
        }
    }

    /** Ack-and-poll reply: {code per call..., poll reply}; each call gets {code, its poll share (splitPolls)}. */
    private static void splitAckPolls(List<Call> batch, List<Object> reply) {
        int m = batch.size();
        for (int i = 0; i < m; i++) {
            List<Object> share = new ArrayList<>(7);
            share.add(reply.get(i));
            share.addAll(pollShare(reply, m, i));
            batch.get(i).complete(share);
        }
    }

    /**
     * Call i's share of a poll reply that starts at index {@code from}, shaped as the reply of a poll of one message:
     * the first k calls get one message each, in order, the others none; the first call carries the signal flag and
     * the count of lost messages.
     */
    private static List<Object> pollShare(List<Object> reply, int from, int i) {
        long k = (Long) reply.get(from);
        Object lost = i == 0 ? reply.get(from + 3) : 0L;
        if (i < k) {
            int at = from + 4 + 2 * i;
            return Arrays.asList(1L, -1L, i == 0 ? reply.get(from + 2) : 0L, lost, reply.get(at), reply.get(at + 1));
        }
        return Arrays.asList(0L, reply.get(from + 1), 0L, lost);
    }

    static byte[] arg(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] arg(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(Object bulk) {
        return bulk instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(bulk);
    }
}
