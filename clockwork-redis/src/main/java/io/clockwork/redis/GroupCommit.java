package io.clockwork.redis;

import io.clockwork.queue.spi.Delay;
import io.clockwork.redis.ScriptReplies.AckCode;
import io.clockwork.redis.ScriptReplies.AckPolled;
import io.clockwork.redis.ScriptReplies.Polled;
import io.clockwork.redis.ScriptReplies.Stored;
import io.lettuce.core.RedisFuture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import static io.clockwork.redis.ScriptArgs.KEEP;
import static io.clockwork.redis.ScriptArgs.arg;

/**
 * The group commits of one queue ({@link Batcher}): concurrent offers, acks, single polls and ack-and-polls of one
 * partition share one script call, each caller completed with its own share of the reply, shaped as the reply of its
 * call alone. A call whose group failed is retried alone (an id deduplicates an offer's retry; a receipt makes an
 * ack's retry harmless; a poll's lost delivery comes back after the visibility timeout). Thread-safe.
 */
final class GroupCommit {

    /** Most offers or acks one group-commit script call carries. */
    private static final int MAX_GROUP = 64;
    /**
     * Most group-commit script calls of one kind in flight per partition (see {@link Batcher}). Two: with more callers
     * than that, the others' calls go together in the next script call, which costs the server about as much as a
     * call of one (the script's own cost, not its messages', dominates); four blocking producers on one partition
     * then cost the server a quarter less CPU per offer than with four calls in flight (docs/benchmarks.md).
     */
    static final int MAX_IN_FLIGHT = 2;

    /**
     * One call of a group commit: its own per-message arguments, completed with its own reply, shaped as the reply
     * of that call alone. An offer also has its delay (sent once for the whole script call when every offer of it
     * has the same) and whether its id is fresh.
     */
    private static final class Call extends CompletableFuture<List<Object>> {
        final byte[][] args;
        final Delay delay;
        /**
         * An offer's flag for offer.lua: {@link ScriptArgs#FRESH}, {@link ScriptArgs#KEEP}, {@link ScriptArgs#REPLACE}
         * or {@link ScriptArgs#EXTEND}.
         */
        final byte flag;

        Call(Delay delay, byte flag, byte[]... args) {
            this.args = args;
            this.delay = delay;
            this.flag = flag;
        }
    }

    private final ScriptRunner runner;
    private final Partitions partitions;
    private final Retries retries;
    private final byte[] maxAttemptsArg;
    private final byte[] visibilityArg;
    private final Batcher<Call>[] offers;
    private final Batcher<Call>[] acks;
    private final Batcher<Call>[] polls;
    private final Batcher<Call>[] ackPolls;

    /**
     * @param maxAttemptsArg ARGV[1] of the partition scripts ({@link ScriptArgs#settingsArg})
     * @param visibilityArg  the visibility timeout in ms, as poll.lua takes it
     */
    GroupCommit(ScriptRunner runner, Partitions partitions, Retries retries,
                byte[] maxAttemptsArg, byte[] visibilityArg) {
        this.runner = runner;
        this.partitions = partitions;
        this.retries = retries;
        this.maxAttemptsArg = maxAttemptsArg;
        this.visibilityArg = visibilityArg;
        this.offers = batchers(MAX_GROUP, this::offerArgs, Script.OFFER, GroupCommit::splitOffers);
        this.acks = batchers(MAX_GROUP, this::ackGroupArgs, Script.ACK, GroupCommit::splitAcks);
        this.polls = batchers(Integer.MAX_VALUE, batch -> pollArgs(batch.size()), Script.POLL,
                GroupCommit::splitPolls);
        this.ackPolls = batchers(MAX_GROUP, this::ackPollArgs, Script.ACK_POLL, GroupCommit::splitAckPolls);
    }

    /**
     * Offers one message through its partition's group commit.
     *
     * @param tail the message's tail ({@link Tail#of})
     * @param flag {@link ScriptArgs#FRESH} for an id just generated (its first attempt skips the dedup read; a retry
     *             checks it), else the conflict policy: {@link ScriptArgs#KEEP}, {@link ScriptArgs#REPLACE} or
     *             {@link ScriptArgs#EXTEND}
     */
    Stored offer(int p, String id, byte[] tail, Delay delay, byte flag) {
        Call call = new Call(delay, flag, arg(id), tail);
        byte[][] alone = {maxAttemptsArg, arg(delay.millis()), ScriptArgs.retryFlags(flag), call.args[0], call.args[1]};
        return Stored.of(grouped("offer", runner.retryNanos(), offers[p], call, Script.OFFER, p, alone).value());
    }

    /**
     * Acks one delivery through its partition's group commit.
     *
     * @return DELETED, NOT_HELD, GONE, or GONE_AFTER_RETRY when a retry of this call found the message gone (its
     *         first attempt, whose reply was lost, may have deleted it)
     */
    AckCode ack(int p, String id, long receipt, String group) {
        Call call = new Call(null, KEEP, ScriptArgs.ackArgs(id, receipt, group));
        byte[][] alone = {maxAttemptsArg, call.args[0], call.args[1], call.args[2]};
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

    /**
     * Acks one delivery and takes at most one due message of the same partition, through the partition's group
     * commit of such calls (concurrent handlers share one ack_poll.lua call). Retried alone after a transient
     * failure: the receipt makes the ack's retry harmless, and a message the lost attempt took comes back after the
     * visibility timeout.
     */
    AckPolled ackPoll(int p, String id, long receipt, String group) {
        Call call = new Call(null, KEEP, ScriptArgs.ackArgs(id, receipt, group));
        byte[][] alone = {maxAttemptsArg, arg(QueueScripts.SWEEP_LIMIT), visibilityArg, ScriptArgs.ONE, call.args[0],
                call.args[1], call.args[2]};
        ScriptRunner.Reply<List<Object>> r = grouped("ackAndPoll", runner.retryNanos(), ackPolls[p], call,
                Script.ACK_POLL, p, alone);
        return new AckPolled(AckCode.of((Long) r.value().get(0), r.uncertain()), Polled.of(r.value(), 1));
    }

    /**
     * {@link #offer} without waiting: completes on the connection's I/O thread when the group commit answers; if that
     * attempt fails, the call is retried alone as the blocking path retries it, on {@link Retries#RETRIES}.
     */
    CompletableFuture<Stored> offerAsync(int p, String id, byte[] tail, Delay delay, byte flag) {
        Call call = new Call(delay, flag, arg(id), tail);
        byte[][] alone = {maxAttemptsArg, arg(delay.millis()), ScriptArgs.retryFlags(flag), call.args[0], call.args[1]};
        offers[p].submit(call);
        return retries.settled("offer", call, Script.OFFER, p, alone).thenApply(r -> Stored.of(r.value()));
    }

    /** {@link #ack} without waiting, as {@link #offerAsync}. */
    CompletableFuture<AckCode> ackAsync(int p, String id, long receipt, String group) {
        Call call = new Call(null, KEEP, ScriptArgs.ackArgs(id, receipt, group));
        byte[][] alone = {maxAttemptsArg, call.args[0], call.args[1], call.args[2]};
        acks[p].submit(call);
        return retries.settled("ack", call, Script.ACK, p, alone).thenApply(r -> AckCode.of((Long) r.value().get(0),
                r.uncertain()));
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
        }, script, partitions.keys(script, p), alone);
    }

    /** @return poll.lua's arguments for taking up to n messages */
    byte[][] pollArgs(int n) {
        return new byte[][] {maxAttemptsArg, arg(QueueScripts.SWEEP_LIMIT), visibilityArg,
                n == 1 ? ScriptArgs.ONE : arg(n)};
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
            fresh += c.flag == ScriptArgs.FRESH ? 1 : 0;
            keep += c.flag == KEEP ? 1 : 0;
        }
        byte[] flags;
        if (fresh == batch.size()) {
            flags = ScriptArgs.FRESH_ALL;
        } else if (keep == batch.size()) {
            flags = ScriptArgs.CHECK_ALL;
        } else {
            flags = new byte[batch.size()];
            for (int i = 0; i < flags.length; i++) {
                flags[i] = batch.get(i).flag;
            }
        }
        int width = common != null ? 2 : 3;
        byte[][] args = new byte[3 + width * batch.size()][];
        args[0] = maxAttemptsArg;
        args[1] = common != null ? arg(common.millis()) : ScriptArgs.CHECK_ALL;
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

    /** ack_poll.lua's arguments: poll.lua's for as many messages as calls, then (id, member, group) per call. */
    private byte[][] ackPollArgs(List<Call> batch) {
        byte[][] args = new byte[4 + 3 * batch.size()][];
        System.arraycopy(pollArgs(batch.size()), 0, args, 0, 4);
        int at = 4;
        for (Call c : batch) {
            args[at++] = c.args[0];
            args[at++] = c.args[1];
            args[at++] = c.args[2];
        }
        return args;
    }

    /** ack.lua's arguments: maxAttempts, then (id, member, group) per call. */
    private byte[][] ackGroupArgs(List<Call> batch) {
        byte[][] args = new byte[1 + 3 * batch.size()][];
        args[0] = maxAttemptsArg;
        int at = 1;
        for (Call c : batch) {
            args[at++] = c.args[0];
            args[at++] = c.args[1];
            args[at++] = c.args[2];
        }
        return args;
    }

    /** Splits a group commit's reply into each call's own reply, shaped as the reply of that call alone. */
    private interface Split {
        void complete(List<Call> batch, List<Object> reply);
    }

    @SuppressWarnings("unchecked")
    private Batcher<Call>[] batchers(int max, Function<List<Call>, byte[][]> argsOf,
                                     Script script, Split split) {
        Batcher<Call>[] result = new Batcher[partitions.count()];
        for (int p = 0; p < result.length; p++) {
            byte[][] k = partitions.keys(script, p);
            result[p] = new Batcher<>(max, MAX_IN_FLIGHT, batch -> {
                RedisFuture<List<Object>> f = runner.send(script, k, argsOf.apply(batch));
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
}
