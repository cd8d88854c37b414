package io.clockwork.redis;

import io.clockwork.queue.QueueCounters;
import io.clockwork.queue.QueueOptions;
import io.clockwork.queue.spi.Delay;
import io.clockwork.redis.ScriptReplies.AckCode;
import io.clockwork.redis.ScriptReplies.AckPolled;
import io.clockwork.redis.ScriptReplies.Counts;
import io.clockwork.redis.ScriptReplies.Dead;
import io.clockwork.redis.ScriptReplies.Flagged;
import io.clockwork.redis.ScriptReplies.Granted;
import io.clockwork.redis.ScriptReplies.Polled;
import io.clockwork.redis.ScriptReplies.Stored;
import io.lettuce.core.KeyValue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.clockwork.redis.ScriptArgs.arg;

/**
 * The queue's script calls, one method per operation, each returning a typed reply ({@link ScriptReplies}) from
 * arguments encoded as the script's header says ({@link ScriptArgs}). Calls of one message go to their script at
 * once; offers, acks and single polls go through the partition's group commit ({@link GroupCommit}); batches are
 * split by partition ({@link PartitionBatch}). Thread-safe.
 */
final class QueueScripts {

    /** Most expired deliveries one script call returns to the schedule. */
    static final int SWEEP_LIMIT = 100;
    /** Most keys one {@code cold_drop.lua} call deletes. */
    static final int DROP_LIMIT = 1_000;
    /** Most dead letters one purge call deletes. */
    static final int PURGE_BATCH = 1000;

    private final ScriptRunner runner;
    private final Connections connections;
    private final Partitions partitions;
    private final byte[] maxAttemptsArg;
    private final byte[] visibilityArg;
    private final Retries retries;
    private final GroupCommit groups;
    private final PartitionBatch batches;

    QueueScripts(ScriptRunner runner, Connections connections, Partitions partitions, QueueOptions<?> options,
                 Duration compactAfter) {
        this.runner = runner;
        this.connections = connections;
        this.partitions = partitions;
        long placedWindowMs = ScriptArgs.placedWindow(Duration.ofNanos(runner.timeoutNanos()),
                Duration.ofNanos(runner.retryNanos())).toMillis();
        this.maxAttemptsArg = ScriptArgs.settingsArg(options, partitions.count(), compactAfter,
                Duration.ofMillis(placedWindowMs));
        this.retries = new Retries(runner, partitions);
        this.visibilityArg = arg(options.visibilityTimeout().toMillis());
        this.groups = new GroupCommit(runner, partitions, retries, maxAttemptsArg, visibilityArg);
        this.batches = new PartitionBatch(runner, partitions, maxAttemptsArg, placedWindowMs);
    }

    /** Loads every script into the server, so that the first calls need no {@code SCRIPT LOAD}. */
    void preload() {
        runner.preload();
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

    /** @return whether the operations run as the library's functions; false: as scripts */
    boolean functions() {
        return runner.functions();
    }

    /** Runs a script on partition p with the keys it takes, retrying transient failures ({@link ScriptRunner}). */
    private <T> T run(String operation, Script script, int p, byte[]... args) {
        return runner.run(operation, script, partitions.keys(script, p), args);
    }

    /** {@link GroupCommit#offer}. */
    Stored offer(int p, String id, byte[] tail, Delay delay, byte flag) {
        return groups.offer(p, id, tail, delay, flag);
    }

    /** {@link GroupCommit#ack}. */
    AckCode ack(int p, String id, long receipt, String group) {
        return groups.ack(p, id, receipt, group);
    }

    /** {@link GroupCommit#pollOne}. */
    Polled pollOne(int p, boolean retry) {
        return groups.pollOne(p, retry);
    }

    /** {@link GroupCommit#ackPoll}. */
    AckPolled ackPoll(int p, String id, long receipt, String group) {
        return groups.ackPoll(p, id, receipt, group);
    }

    /** {@link GroupCommit#offerAsync}. */
    CompletableFuture<Stored> offerAsync(int p, String id, byte[] tail, Delay delay, byte flag) {
        return groups.offerAsync(p, id, tail, delay, flag);
    }

    /** {@link GroupCommit#ackAsync}. */
    CompletableFuture<AckCode> ackAsync(int p, String id, long receipt, String group) {
        return groups.ackAsync(p, id, receipt, group);
    }

    /** {@link PartitionBatch#offerAll}. */
    long[] offerAll(String[] ids, byte[][] tails, Delay delay, boolean fresh, Runnable signal) {
        return batches.offerAll(ids, tails, delay, fresh, signal);
    }

    /** {@link PartitionBatch#offerAllAsync}. */
    CompletableFuture<long[]> offerAllAsync(String[] ids, byte[][] tails, Delay delay, boolean fresh,
                                            Runnable signal) {
        return batches.offerAllAsync(ids, tails, delay, fresh, signal);
    }

    /** {@link PartitionBatch#offerMessages}. */
    long[] offerMessages(String[] ids, byte[][] tails, Delay[] delays, byte[] flags, Runnable signal) {
        return batches.offerMessages(ids, tails, delays, flags, signal);
    }

    /** {@link PartitionBatch#offerMessagesAsync}. */
    CompletableFuture<long[]> offerMessagesAsync(String[] ids, byte[][] tails, Delay[] delays, byte[] flags,
                                                 Runnable signal) {
        return batches.offerMessagesAsync(ids, tails, delays, flags, signal);
    }

    /** {@link PartitionBatch#ackAll}. */
    long[] ackAll(String[] ids, long[] receipts, String[] groups) {
        return batches.ackAll(ids, receipts, groups);
    }

    /** Takes up to n messages in one call of its own. */
    Polled pollMany(int p, int n, boolean retry) {
        byte[][] args = groups.pollArgs(n);
        List<Object> r = retry ? run("poll", Script.POLL, p, args)
                : runner.runOnce("poll", Script.POLL, partitions.keys(Script.POLL, p), args);
        return Polled.of(r);
    }

    /**
     * Takes up to n messages under the queue's rate limit, in one call of its own. Where partition p's scripts reach
     * partition 0's slot (a standalone server, or p = 0) that is one {@code poll_rate.lua} call, which grants and
     * takes at once. Elsewhere (a Cluster's other partitions) the permits are acquired first ({@code rate.lua} on
     * partition 0's slot), p is polled for at most as many ({@code poll.lua}), and the permits it did not use are
     * given back at once, so the log keeps only deliveries made.
     *
     * @param countHeld 1 if a refusal is to count as a poll held back by the limit (the poll's first), else 0
     */
    Polled pollLimited(int p, int n, int countHeld, boolean retry) {
        if (!connections.cluster() || p == 0) {
            byte[][] args = {maxAttemptsArg, arg(QueueScripts.SWEEP_LIMIT), visibilityArg, arg(n), arg(countHeld)};
            List<Object> r = retry ? run("poll", Script.POLL_RATE, p, args)
                    : runner.runOnce("poll", Script.POLL_RATE, partitions.keys(Script.POLL_RATE, p), args);
            return Polled.limited(r);
        }
        byte[][] rateKeys = partitions.keys(Script.RATE, 0);
        Granted g = Granted.of(retry ? runner.run("poll", Script.RATE, rateKeys, maxAttemptsArg, ACQUIRE, arg(n),
                arg(countHeld)) : runner.runOnce("poll", Script.RATE, rateKeys, maxAttemptsArg, ACQUIRE, arg(n),
                arg(countHeld)));
        if (g.granted() == 0) {
            return Polled.refused(g.waitMs());
        }
        // If this poll fails, whether it took anything is unknown: its permits stay counted until they age out.
        Polled polled = pollMany(p, g.granted(), retry);
        int unused = g.granted() - polled.taken().size();
        if (unused > 0 && g.atMs() > 0) {
            try {
                runner.runOnce("poll", Script.RATE, rateKeys, maxAttemptsArg, GIVE_BACK, arg(g.atMs()), arg(unused));
            } catch (RuntimeException e) {
                // The messages are in flight for the caller: the unused permits stay counted until they age out.
            }
        }
        return polled;
    }

    private static final byte[] ACQUIRE = arg("a");
    private static final byte[] GIVE_BACK = arg("g");

    /**
     * @param operation what the caller does, for errors: {@code poll} (an undecodable payload) or {@code deadLetter}
     * @return whether the message was buried (this delivery still held it)
     */
    boolean kill(String operation, int p, String id, long receipt, String reason) {
        Long r = run(operation, Script.KILL, p, maxAttemptsArg, arg(id), arg(receipt),
                arg(reason));
        return r == 1L;
    }

    /** @return whether this delivery still holds its message, now until the server's clock plus visibilityMs */
    boolean extend(int p, String id, long receipt, long visibilityMs) {
        Long r = run("extend", Script.EXTEND, p, maxAttemptsArg, arg(id), arg(receipt),
                arg(visibilityMs));
        return r == 1L;
    }

    /** Hands a delivery's message back, due now, its attempts unchanged. */
    Flagged release(int p, String id, long receipt) {
        return Flagged.of(run("release", Script.RELEASE, p, maxAttemptsArg, arg(id),
                arg(receipt)));
    }

    boolean cancel(int p, String id) {
        Long r = run("cancel", Script.CANCEL, p, maxAttemptsArg, arg(id));
        return r == 1L;
    }

    Flagged reschedule(int p, String id, Delay delay) {
        return Flagged.of(run("reschedule", Script.RESCHEDULE, p, maxAttemptsArg, arg(id),
                arg(delay.millis())));
    }

    /** @param error the last error to record, or null to keep the one recorded (if any) */
    Flagged nack(int p, String id, long receipt, Delay retryDelay, String error) {
        byte[][] args = error == null
                ? new byte[][] {maxAttemptsArg, arg(id), arg(receipt), arg(retryDelay.millis())}
                : new byte[][] {maxAttemptsArg, arg(id), arg(receipt), arg(retryDelay.millis()), arg(error)};
        return Flagged.of(run("nack", Script.NACK, p, args));
    }

    Flagged requeueDead(int p, String id) {
        return Flagged.of(run("requeueDead", Script.DEAD_REQUEUE, p, maxAttemptsArg,
                arg(id)));
    }

    /** @return how many dead letters were deleted, at most {@link #PURGE_BATCH} */
    long purgeDead(int p) {
        return run("purgeDead", Script.DEAD_PURGE, p, maxAttemptsArg, arg(PURGE_BATCH));
    }

    List<Dead> deadLetters(int p, int limit) {
        return Dead.listOf(run("deadLetters", Script.DEAD_LIST, p, maxAttemptsArg,
                arg(SWEEP_LIMIT), arg(limit)));
    }

    /** The fields of the counters hash ({@code include/counters.lua}), in {@link QueueCounters}' order. */
    private static final byte[][] COUNTER_FIELDS = {arg("offered"), arg("delivered"), arg("acked"), arg("retried"),
        arg("dead"), arg("limited")};

    /**
     * Reads partition p's event counters with one {@code HMGET}; a field never incremented reads as 0.
     *
     * @throws RedisQueueException if Redis fails
     */
    QueueCounters counters(int p, String queueName) {
        List<KeyValue<byte[], byte[]>> r;
        try {
            r = runner.await(connections.commands().hmget(partitions.key(KeyLayout.Key.COUNTERS, p), COUNTER_FIELDS));
        } catch (RuntimeException e) {
            throw new RedisQueueException("queue '" + queueName + "' on " + connections.where()
                    + ": reading the counters of partition " + p + " failed: " + e.getMessage(), e);
        }
        long[] n = new long[COUNTER_FIELDS.length];
        for (int i = 0; i < n.length; i++) {
            KeyValue<byte[], byte[]> kv = r.get(i);
            n[i] = kv.hasValue() ? Long.parseLong(new String(kv.getValue(), StandardCharsets.US_ASCII)) : 0L;
        }
        return new QueueCounters(n[0], n[1], n[2], n[3], n[4], n[5]);
    }

    Counts stats(int p) {
        return Counts.of(run("stats", Script.STATS, p, maxAttemptsArg, arg(SWEEP_LIMIT)));
    }

    /**
     * Pauses ({@code 'p'}), resumes ({@code 'r'}) or reads ({@code '?'}) partition p ({@code pause.lua}).
     *
     * @return whether the partition is paused after the call, and whether the client must push the wake-up
     */
    Flagged pause(int p, char action) {
        return Flagged.of(run("pause", Script.PAUSE, p, maxAttemptsArg, arg(String.valueOf(action))));
    }

    /** Marks partition p as ordered by priority ({@code order.lua}). */
    void order(int p) {
        run("order", Script.ORDER, p, maxAttemptsArg);
    }

    /** {@link #order} without waiting, as {@link #cancelAsync}. */
    CompletableFuture<Void> orderAsync(int p) {
        byte[][] args = {maxAttemptsArg};
        CompletableFuture<Long> first;
        try {
            first = runner.<Long>send(Script.ORDER, partitions.keys(Script.ORDER, p), args).toCompletableFuture();
        } catch (RuntimeException e) {
            first = CompletableFuture.failedFuture(e);
        }
        return retries.settled("order", first, Script.ORDER, p, args).thenApply(r -> null);
    }

    /**
     * Marks partition p grouped ({@code group.lua}); with options, stores them too.
     *
     * @param options null to mark only, else the options as GCONF's field, value pairs ({@link Groups})
     */
    void group(int p, byte[][] options) {
        byte[][] args = new byte[2 + (options == null ? 0 : options.length)][];
        args[0] = maxAttemptsArg;
        args[1] = arg(options == null ? "" : "1");
        if (options != null) {
            System.arraycopy(options, 0, args, 2, options.length);
        }
        run("group", Script.GROUP, p, args);
    }

    /** {@link #group} without options and without waiting, as {@link #orderAsync}. */
    CompletableFuture<Void> groupAsync(int p) {
        byte[][] args = {maxAttemptsArg, arg("")};
        CompletableFuture<Long> first;
        try {
            first = runner.<Long>send(Script.GROUP, partitions.keys(Script.GROUP, p), args).toCompletableFuture();
        } catch (RuntimeException e) {
            first = CompletableFuture.failedFuture(e);
        }
        return retries.settled("group", first, Script.GROUP, p, args).thenApply(r -> null);
    }

    /** @return partition p's groups ({@code group_list.lua}): group, ready, in flight, per group */
    List<Object> groupList(int p) {
        return run("largestGroups", Script.GROUP_LIST, p, maxAttemptsArg);
    }

    boolean exists(int p) {
        Long r = run("exists", Script.EXISTS, p, maxAttemptsArg);
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
                r = run("cold_drop", Script.COLD_DROP, p, maxAttemptsArg, arg(DROP_LIMIT));
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

    /** {@link #cancel} without waiting, as {@link #offerAsync}. */
    CompletableFuture<Boolean> cancelAsync(int p, String id) {
        byte[][] args = {maxAttemptsArg, arg(id)};
        CompletableFuture<Long> first;
        try {
            first = runner.<Long>send(Script.CANCEL, partitions.keys(Script.CANCEL, p), args).toCompletableFuture();
        } catch (RuntimeException e) {
            first = CompletableFuture.failedFuture(e);
        }
        return retries.settled("cancel", first, Script.CANCEL, p, args).thenApply(r -> r.value() == 1L);
    }
}
