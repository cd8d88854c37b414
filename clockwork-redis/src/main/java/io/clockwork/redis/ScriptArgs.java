package io.clockwork.redis;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueOptions;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * How the client encodes the scripts' arguments: numbers and strings as bytes, members, the settings word every
 * partition script takes as ARGV[1], and {@code offer.lua}'s per-message flags, each as the script's header says.
 * Stateless and thread-safe.
 */
final class ScriptArgs {

    /** The number 1, as poll.lua's count of one message. */
    static final byte[] ONE = arg(1);
    /** offer.lua's fresh flags: every id needs the dedup check / none does (see offer.lua). Also "no shared delay". */
    static final byte[] CHECK_ALL = new byte[0];
    static final byte[] FRESH_ALL = {'*'};
    /** ack.lua's group of a delivery whose message has none. */
    static final byte[] NO_GROUP = new byte[0];

    /** offer.lua's per-message flags (see its header): a fresh id, or the conflict policy of a checked one. */
    static final byte FRESH = '1';
    static final byte KEEP = '0';
    static final byte REPLACE = 'r';
    static final byte EXTEND = 'e';

    private ScriptArgs() {
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

    /** offer.lua's flags for one message retried alone: a fresh id is checked, as any id with policy keep. */
    static byte[] retryFlags(byte flag) {
        return flag == FRESH || flag == KEEP ? CHECK_ALL : new byte[] {flag};
    }

    /** offer.lua's flags for a partition's members; on a retry, fresh ids are checked. */
    static byte[] flagsOf(int[] members, byte[] flags, boolean retry) {
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
     * ack.lua's arguments for one delivery: id, its in-flight member (which proves it holds the message) and its
     * message's group, empty for none (a delivery of a named group's message frees the group's slot).
     *
     * @param group the group the delivery read from its message's headers, or null
     */
    static byte[][] ackArgs(String id, long receipt, String group) {
        return new byte[][] {arg(id), member(receipt, id), group == null ? NO_GROUP : arg(group)};
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

    static byte[] arg(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    static byte[] arg(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
