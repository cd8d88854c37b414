package io.clockwork.redis;

import io.clockwork.time.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntFunction;

/**
 * Where a queue's messages live and which partitions are worth a round trip: the id-to-partition map
 * ({@link PartitionSelector}), each partition's keys ({@link KeyLayout}) and, when there is more than one, what this
 * client knows of each partition's state. Thread-safe.
 *
 * <ul>
 *   <li><b>Down</b>: a partition whose call just failed (its Cluster master unreachable) is skipped for
 *       {@link #PROBE_INTERVAL_MS}, so that one master down does not stop polls of the partitions on the others.</li>
 *   <li><b>Empty</b>: a partition that answered "nothing due before t" is skipped until min(t, {@link
 *       #EMPTY_HINT_MAX_MS}), unless this client offers there or a wake-up signal arrives, so idle partitions cost no
 *       round trips.</li>
 * </ul>
 * Times are readings of the client's {@link Ticker}: they only say when to ask again, never when a message is due.
 */
final class Partitions {

    /** How long a poll skips a partition (or the wake-up signal) that just failed before trying it again. */
    static final long PROBE_INTERVAL_MS = 100;
    static final long PROBE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(PROBE_INTERVAL_MS);
    /** Longest a poll skips a partition that just answered "nothing due" (partitioned queues only). */
    static final long EMPTY_HINT_MAX_MS = 20;

    private final KeyLayout keys;
    private final PartitionSelector selector;
    private final Ticker ticker;
    /** Per partition (when more than one): the ticker reading before which a failing partition is skipped. */
    private final AtomicLongArray downUntil;
    /** Per partition (when more than one): the ticker reading before which an empty partition is skipped. */
    private final AtomicLongArray emptyUntil;

    Partitions(KeyLayout keys, Ticker ticker) {
        this.keys = keys;
        this.selector = new PartitionSelector(keys.partitions());
        this.ticker = ticker;
        this.downUntil = keys.partitions() > 1 ? new AtomicLongArray(keys.partitions()) : null;
        this.emptyUntil = keys.partitions() > 1 ? new AtomicLongArray(keys.partitions()) : null;
    }

    /** @return how many partitions */
    int count() {
        return keys.partitions();
    }

    /** @return whether there is more than one, so that a poll has somewhere else to go when one fails */
    boolean many() {
        return downUntil != null;
    }

    /** @return the keys a script takes in partition p ({@link KeyLayout#keys(Script, int)}) */
    byte[][] keys(Script script, int p) {
        return keys.keys(script, p);
    }

    /** @return one of partition p's keys */
    byte[] key(KeyLayout.Key key, int p) {
        return keys.key(key, p);
    }

    /** @return the key of the wake-up signal list */
    byte[] signalKey() {
        return keys.signalKey();
    }

    /** @return the partition of a message id */
    int of(String id) {
        return selector.partitionOf(id);
    }

    /** @return the partition a poll starts at (see {@link PartitionSelector#nextStart()}) */
    int nextStart() {
        return selector.nextStart();
    }

    /** @return the partition a batch poll starts at (see {@link PartitionSelector#nextBatchStart()}) */
    int nextBatchStart() {
        return selector.nextBatchStart();
    }

    /** @return the id-to-partition map */
    PartitionSelector selector() {
        return selector;
    }

    /**
     * Groups the messages of a batch by partition.
     *
     * @param n    how many messages
     * @param idOf each message's id
     * @return per partition, the indexes of its messages in batch order; null for a partition with none
     */
    int[][] group(int n, IntFunction<String> idOf) {
        int parts = count();
        int[] partOf = new int[n];
        int[] size = new int[parts];
        for (int i = 0; i < n; i++) {
            partOf[i] = parts == 1 ? 0 : of(idOf.apply(i));
            size[partOf[i]]++;
        }
        int[][] members = new int[parts][];
        int[] filled = new int[parts];
        for (int i = 0; i < n; i++) {
            int p = partOf[i];
            if (members[p] == null) {
                members[p] = new int[size[p]];
            }
            members[p][filled[p]++] = i;
        }
        return members;
    }

    /** @return whether partition p failed less than {@link #PROBE_INTERVAL_MS} ago */
    boolean isDown(int p) {
        return downUntil != null && downUntil.get(p) - ticker.read() > 0;
    }

    /** Partition p failed: skip it for {@link #PROBE_INTERVAL_MS}. */
    void markDown(int p) {
        downUntil.set(p, ticker.read() + PROBE_INTERVAL_NANOS);
    }

    /** Partition p answered. */
    void markUp(int p) {
        if (downUntil != null) {
            downUntil.set(p, 0);
        }
    }

    /**
     * @param now a ticker reading
     * @return the milliseconds from now until the first down partition is probed again, or {@code Long.MAX_VALUE}
     */
    long untilProbeMs(long now) {
        long ms = Long.MAX_VALUE;
        if (downUntil != null) {
            for (int p = 0; p < count(); p++) {
                long until = downUntil.get(p);
                if (until != 0) {
                    ms = Math.min(ms, ceilMillis(Math.max(0, until - now)));
                }
            }
        }
        return ms;
    }

    /**
     * @return the milliseconds until partition p is worth polling again after it answered "nothing due", or 0 if it
     *         is worth polling now
     */
    long emptyForMs(int p) {
        if (emptyUntil == null) {
            return 0;
        }
        long left = emptyUntil.get(p) - ticker.read();
        return left > 0 ? ceilMillis(left) : 0;
    }

    /**
     * Partition p answered a poll.
     *
     * @param nextEventMs the milliseconds until its next event: 0 if it may have more due now, -1 if none
     */
    void polled(int p, long nextEventMs) {
        if (emptyUntil != null && nextEventMs != 0) {
            long hint = nextEventMs < 0 ? EMPTY_HINT_MAX_MS : Math.min(nextEventMs, EMPTY_HINT_MAX_MS);
            emptyUntil.set(p, ticker.read() + TimeUnit.MILLISECONDS.toNanos(hint));
        }
    }

    /** This client made a message due in partition p (an offer): poll it again at once. */
    void offered(int p) {
        if (emptyUntil != null) {
            emptyUntil.set(p, 0);
        }
    }

    /** A wake-up signal arrived: any partition may hold a message due now. */
    void woken() {
        if (emptyUntil != null) {
            for (int p = 0; p < count(); p++) {
                emptyUntil.set(p, 0);
            }
        }
    }

    static long ceilMillis(long nanos) {
        return nanos / 1_000_000 + (nanos % 1_000_000 > 0 ? 1 : 0);
    }
}
