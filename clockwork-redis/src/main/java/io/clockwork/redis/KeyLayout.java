package io.clockwork.redis;

import java.nio.charset.StandardCharsets;

/**
 * Where a queue's data lives in Redis: the keys of each partition, all under one hash tag. Immutable and
 * thread-safe.
 *
 * <pre>
 * cw:{name:p}:pending   ZSET  &lt;seq 16 hex&gt;&lt;id&gt; by due time (server ms): delayed and ready messages
 * cw:{name:p}:inflight  ZSET  &lt;seq 16 hex&gt;&lt;id&gt; by visibility deadline (server ms)
 * cw:{name:p}:dead      ZSET  &lt;seq 16 hex&gt;&lt;id&gt; by time of death
 * cw:{name:p}:meta      HASH  id -&gt; "state attempts seq:payload"
 * cw:{name:p}:reason    HASH  id -&gt; why it died
 * cw:{name:p}:seq       STRING counter: FIFO tie-break and delivery receipts
 * cw:{name:p}:lost      STRING messages dropped because Redis evicted part of their state
 * cw:{name:p}:counters  HASH  offered, delivered, acked, retried, dead: cumulative event counts (five fields)
 * cw:{name:p}:revoked   ZSET  &lt;receipt 16 hex&gt;&lt;id&gt; of deliveries whose hold ended without their ack
 *                             (expired, cancelled in flight) by when, kept two minutes (include/revoked.lua)
 * cw:{name:p}:cold      HASH  the compact store's state: entry count, index level and split pointer, chunk counter,
 *                             tombstones per chunk
 * cw:{name:p}:chunks    ZSET  the compact store's chunk names by their earliest due time
 * cw:{name:p}:open      HASH  window -&gt; the chunk offers due in that second append to
 * cw:{name:p}:c:&lt;chunk&gt; LIST  a chunk: up to 128 messages due in one second
 * cw:{name:p}:x:&lt;n&gt;     HASH  an index shard: id -&gt; "&lt;chunk&gt;,&lt;position&gt;" (include/cold.lua)
 * cw:{name:0}:signal    LIST  at most one wake-up token for blocked pollers (one per queue, in partition 0's slot)
 * cw:{name:0}:config    HASH  the queue's partition count, written when the queue is first created
 * cw:{name:p}:sched_def   HASH  schedule name -&gt; rule, misfire policy, spread (schedules hashing to p)
 * cw:{name:p}:sched_msg   HASH  schedule name -&gt; the occurrences' headers and payload
 * cw:{name:p}:sched_state HASH  schedule name -&gt; version, paused, next and last fire time, outstanding id
 * cw:{name:p}:sched_due   ZSET  schedule name by when a scheduler should next look at it
 * cw:queues             SET   the registry: every queue's name, added each time a client builds the queue
 * </pre>
 *
 * Redis Cluster hashes only the text between the first <code>{</code> and the next <code>}</code>, so every key of a
 * partition lands in one slot (scripts may touch them together) and distinct partitions spread over the masters. A
 * <code>}</code> or <code>%</code> in the queue name is percent-encoded so that it cannot end the tag early.
 */
final class KeyLayout {

    /**
     * The registry of queue names, one key for the whole server (in a Cluster, in a slot of its own: written by a
     * command of its own, never inside a queue's scripts).
     */
    static final byte[] REGISTRY_KEY = bytes("cw:queues");

    /** Index of the counters hash in {@link #keys(int)} (KEYS[8] of the scripts). */
    static final int COUNTERS = 7;

    private static final String[] PARTS = {"pending", "inflight", "dead", "meta", "reason", "seq", "lost", "counters"};
    private static final String[] SCHEDULE_PARTS = {"sched_def", "sched_msg", "sched_state", "sched_due"};
    /** The compact store's fixed keys; its chunks and index shards are named by the scripts. */
    private static final String[] COLD_PARTS = {"cold", "chunks", "open", "placed"};
    /** Keys the scripts name themselves, outside the compact store. */
    private static final String[] NAMED_PARTS = {"revoked"};

    private final byte[][][] keys;
    private final byte[] signalKey;

    /**
     * @param name       the queue's name
     * @param partitions how many partitions
     * @param cluster    whether the keys live in a Redis Cluster, where a script may only touch its own slot, so
     *                   only partition 0's scripts may push the signal themselves
     */
    KeyLayout(String name, int partitions, boolean cluster) {
        signalKey = bytes(prefix(name, 0) + "signal");
        keys = new byte[partitions][][];
        for (int p = 0; p < partitions; p++) {
            boolean withSignal = !cluster || p == 0;
            byte[][] k = new byte[PARTS.length + (withSignal ? 1 : 0)][];
            for (int i = 0; i < PARTS.length; i++) {
                k[i] = bytes(prefix(name, p) + PARTS[i]);
            }
            if (withSignal) {
                k[PARTS.length] = signalKey;
            }
            keys[p] = k;
        }
    }

    /**
     * @param partition the partition
     * @return the keys every script takes, in the order of {@code include/keys.lua} (KEYS[1] to KEYS[9]; the last,
     *         the signal key, only where the partition's scripts may touch it: on a standalone server, or partition 0
     *         of a Cluster); a shared array: do not modify
     */
    byte[][] keys(int partition) {
        return keys[partition];
    }

    /** @return the key blocked pollers wait on */
    byte[] signalKey() {
        return signalKey;
    }

    /**
     * @param name the queue's name
     * @return the key of the queue's stored configuration (partition 0's slot)
     */
    static byte[] configKey(String name) {
        return bytes(prefix(name, 0) + "config");
    }

    /**
     * @param name      the queue's name
     * @param partition the partition
     * @return the partition's sequence counter, created by its first offer
     */
    static byte[] seqKey(String name, int partition) {
        return bytes(prefix(name, partition) + "seq");
    }

    /**
     * @param name      the queue's name
     * @param partition the partition
     * @return every fixed key the partition may have (not the compact store's chunks and index shards, which
     *         {@code cold_drop.lua} deletes), and for partition 0 the queue's signal and configuration keys, all
     *         in the partition's slot
     */
    static byte[][] allKeys(String name, int partition) {
        int extra = partition == 0 ? 2 : 0;
        int fixed = PARTS.length + SCHEDULE_PARTS.length;
        int named = fixed + COLD_PARTS.length;
        byte[][] k = new byte[named + NAMED_PARTS.length + extra][];
        for (int i = 0; i < PARTS.length; i++) {
            k[i] = bytes(prefix(name, partition) + PARTS[i]);
        }
        for (int i = 0; i < SCHEDULE_PARTS.length; i++) {
            k[PARTS.length + i] = bytes(prefix(name, partition) + SCHEDULE_PARTS[i]);
        }
        for (int i = 0; i < COLD_PARTS.length; i++) {
            k[fixed + i] = bytes(prefix(name, partition) + COLD_PARTS[i]);
        }
        for (int i = 0; i < NAMED_PARTS.length; i++) {
            k[named + i] = bytes(prefix(name, partition) + NAMED_PARTS[i]);
        }
        if (partition == 0) {
            k[k.length - 2] = bytes(prefix(name, 0) + "signal");
            k[k.length - 1] = configKey(name);
        }
        return k;
    }

    /**
     * @param name      the queue's name
     * @param partition the partition
     * @return the keys of the schedules whose names hash to the partition, in the order of
     *         {@code include/sched_keys.lua}: sched_def, sched_msg, sched_state, sched_due
     */
    static byte[][] scheduleKeys(String name, int partition) {
        byte[][] k = new byte[SCHEDULE_PARTS.length][];
        for (int i = 0; i < SCHEDULE_PARTS.length; i++) {
            k[i] = bytes(prefix(name, partition) + SCHEDULE_PARTS[i]);
        }
        return k;
    }

    /**
     * @param name      the queue's name
     * @param partition the partition
     * @return a key in the partition's slot that no script touches, standing in for the signal key where that
     *         lives in another slot (a cluster's partitions other than 0), for scripts that take the signal's place
     *         in their keys but never push it
     */
    static byte[] noSignalKey(String name, int partition) {
        return bytes(prefix(name, partition) + "nosignal");
    }

    /** @return how many partitions */
    int partitions() {
        return keys.length;
    }

    /**
     * @param name      the queue's name
     * @param partition the partition
     * @return the common prefix of the partition's keys, e.g. {@code cw:{orders:0}:}
     */
    static String prefix(String name, int partition) {
        return "cw:{" + escape(name) + ":" + partition + "}:";
    }

    private static String escape(String name) {
        return name.replace("%", "%25").replace("}", "%7D");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
