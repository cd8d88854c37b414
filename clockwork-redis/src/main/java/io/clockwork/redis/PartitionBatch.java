package io.clockwork.redis;

import io.clockwork.queue.spi.Delay;
import io.clockwork.redis.ScriptReplies.AckCode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

import static io.clockwork.redis.ScriptArgs.CHECK_ALL;
import static io.clockwork.redis.ScriptArgs.FRESH_ALL;
import static io.clockwork.redis.ScriptArgs.arg;

/**
 * The batch calls of one queue: a batch of offers or acks split by partition into one script call per partition it
 * touches, all sent before any reply is awaited; a partition that fails is retried alone while the others' replies
 * stand. Thread-safe.
 */
final class PartitionBatch {

    private final ScriptRunner runner;
    private final Partitions partitions;
    private final byte[] maxAttemptsArg;
    /** How long offer.lua keeps an offer call's places for its retries ({@link ScriptArgs#placedWindow}), ms. */
    private final long placedWindowMs;

    PartitionBatch(ScriptRunner runner, Partitions partitions, byte[] maxAttemptsArg,
                   long placedWindowMs) {
        this.runner = runner;
        this.partitions = partitions;
        this.maxAttemptsArg = maxAttemptsArg;
        this.placedWindowMs = placedWindowMs;
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
     * @param flags per message, {@link ScriptArgs#FRESH} or its conflict policy (see {@link GroupCommit#offer})
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
                    byte[] f = ScriptArgs.flagsOf(members, flags, false);
                    return new byte[][] {maxAttemptsArg, shared, f == FRESH_ALL && !perMessageDelay
                            ? freshAll(ids, members) : f};
                },
                members -> new byte[][] {maxAttemptsArg, shared, ScriptArgs.flagsOf(members, flags, true)},
                i -> perMessageDelay ? new byte[][] {arg(ids[i]), tails[i], arg(delays[i].millis())}
                        : new byte[][] {arg(ids[i]), tails[i]}, signal);
    }

    /**
     * offer.lua's flags for a call whose ids are all fresh: {@code '*'}, followed, when the queue keeps places for
     * retries ({@link ScriptArgs#placedWindow}), by the ids' counters ({@link IdGenerator#counterRuns}), with which
     * offer.lua records the call's places by message number instead of reading each id.
     */
    private byte[] freshAll(String[] ids, int[] members) {
        String runs = placedWindowMs > 0 ? IdGenerator.counterRuns(ids, members) : null;
        return runs == null ? FRESH_ALL : arg("*" + runs);
    }

    /**
     * Acks a batch: one ack.lua call per partition, all sent at once.
     *
     * @return per delivery, its {@link AckCode} ordinal, GONE found by a retry reported as GONE_AFTER_RETRY
     */
    long[] ackAll(String[] ids, long[] receipts, String[] groups) {
        byte[][] head = {maxAttemptsArg};
        return perPartition("ackAll", Script.ACK, ids, members -> head, members -> head,
                i -> ScriptArgs.ackArgs(ids[i], receipts[i], groups[i]), null);
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
     * succeeded, else on {@link Retries#RETRIES}, where failed partitions retry alone.
     */
    private CompletableFuture<long[]> collectAsync(Sent batch) {
        CompletableFuture<?>[] calls = batch.calls().stream().filter(Objects::nonNull)
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(calls).handle((r, e) -> e == null
                ? CompletableFuture.completedFuture(collect(batch))
                : CompletableFuture.supplyAsync(() -> collect(batch), Retries.RETRIES)).thenCompose(f -> f);
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
                    f = runner.<List<Object>>send(script, partitions.keys(script, p), args[p]).toCompletableFuture();
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
                        partitions.keys(script, p), retryArgs);
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
                    String place = ScriptReplies.placeOf(r, members[p].length + 1 + j);
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
}
