package io.clockwork.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

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
 * cw:{name:p}:ready     ZSET  &lt;seq 16 hex&gt;&lt;id&gt; of due messages by priority, then due time, where ordered
 *                             is set (include/ready.lua)
 * cw:{name:p}:ordered   STRING set before the partition's first message with a priority: its polls go by priority
 * cw:{name:p}:revoked   ZSET  &lt;receipt 16 hex&gt;&lt;id&gt; of deliveries whose hold ended without their ack
 *                             (expired, cancelled in flight) by when, kept two minutes (include/revoked.lua)
 * cw:{name:0}:order     ZSET  the Redisson face's delayed elements in offer order
 * cw:{name:0}:values    ZSET  the Redisson face's elements by value digest
 * cw:{name:p}:cold      HASH  the compact store's state: entry count, index level and split pointer, chunk counter,
 *                             tombstones per chunk
 * cw:{name:p}:chunks    ZSET  the compact store's chunk names by their earliest due time
 * cw:{name:p}:open      HASH  window -&gt; the chunk offers due in that second append to
 * cw:{name:p}:placed    STREAM the places each offer call gave, kept for its retries (include/cold.lua)
 * cw:{name:p}:c:&lt;chunk&gt; LIST  a chunk: up to 128 messages due in one second
 * cw:{name:p}:x:&lt;n&gt;     HASH  an index shard: id -&gt; "&lt;chunk&gt;,&lt;position&gt;" (include/cold.lua)
 * cw:{name:0}:signal    LIST  at most one wake-up token for blocked pollers (one per queue, in partition 0's slot)
 * cw:{name:0}:config    HASH  the queue's partition count, written when the queue is first created, and its rate
 *                             limit (field rate, "&lt;permits&gt; &lt;interval ms&gt;") if it has one
 * cw:{name:0}:rate      ZSET  the rate limit's log: "&lt;ms&gt;:&lt;cumulative permits&gt;" by ms, one member per
 *                             millisecond that granted permits within the interval (include/rate.lua)
 * cw:{name:p}:sched_def   HASH  schedule name -&gt; rule, misfire policy, spread (schedules hashing to p)
 * cw:{name:p}:sched_msg   HASH  schedule name -&gt; the occurrences' headers and payload
 * cw:{name:p}:sched_state HASH  schedule name -&gt; version, paused, next and last fire time, outstanding id
 * cw:{name:p}:sched_due   ZSET  schedule name by when a scheduler should next look at it
 * cw:queues             SET   the registry: every queue's name, added each time a client builds the queue
 * </pre>
 *
 * Each script takes exactly the keys its code names, in {@link Key}'s order ({@link Script#keys()}); the signal key
 * comes last, and is left out where it lives in another slot (a Cluster's partitions other than 0), so the script
 * reads it as nil. {@code poll_rate.lua} also takes partition 0's {@code rate} and {@code config}: it runs only where
 * the partition's scripts reach partition 0's slot (a standalone server, or partition 0 of a Cluster); a Cluster's
 * other partitions keep their rate limit through {@code rate.lua}, called with partition 0's keys
 * ({@link QueueScripts#pollLimited}). The compact store's keys and {@code revoked} are named by the scripts from the
 * partition's prefix (the chunks and index shards are created as the store grows, so they cannot be listed
 * beforehand).
 *
 * <p>Redis Cluster hashes only the text between the first <code>{</code> and the next <code>}</code>, so every key of a
 * partition lands in one slot (scripts may touch them together) and distinct partitions spread over the masters. A
 * <code>}</code> or <code>%</code> in the queue name is percent-encoded so that it cannot end the tag early.
 */
final class KeyLayout {

    /**
     * A key the scripts take in KEYS, in the order a script lists the ones it takes: a partition's keys, then the
     * Redisson face's, the schedules', the configuration, and last the signal.
     */
    enum Key {
        PENDING("pending"), INFLIGHT("inflight"), DEAD("dead"), META("meta"), REASON("reason"), SEQ("seq"),
        LOST("lost"), COUNTERS("counters"), ORDER("order"), VALUES("values"), SCHED_DEF("sched_def"),
        SCHED_MSG("sched_msg"), SCHED_STATE("sched_state"), SCHED_DUE("sched_due"),
        /** The partition's pause flag: polls take nothing while it exists ({@code pause.lua}). */
        PAUSED("paused"),
        /**
         * Partition 0's, one per queue: the rate limit's log of grants ({@code include/rate.lua}), shared by every
         * partition so that a queue of many partitions keeps one exact limit.
         */
        RATE("rate"),
        /** Partition 0's, one per queue. */
        CONFIG("config"),
        /** Partition 0's, one per queue; last in every script's keys. */
        SIGNAL("signal");

        private final String part;

        Key(String part) {
            this.part = part;
        }

        /** @return the key's name after the partition's prefix, e.g. {@code pending} */
        String part() {
            return part;
        }

        /** @return whether the queue has one such key, in partition 0's slot, whatever the partition */
        boolean perQueue() {
            return this == RATE || this == CONFIG || this == SIGNAL;
        }
    }

    /**
     * The registry of queue names, one key for the whole server (in a Cluster, in a slot of its own: written by a
     * command of its own, never inside a queue's scripts).
     */
    static final byte[] REGISTRY_KEY = bytes("cw:queues");

    /**
     * The fixed keys the scripts name themselves from the partition's prefix: the compact store's (its chunks and
     * index shards are named as the store creates them) and the revoked deliveries'.
     */
    private static final String[] NAMED_PARTS = {"cold", "chunks", "open", "placed", "revoked", "ready", "ordered",
        "grouped", "ring", "gflight", "gwait", "gconf", "gready", "gturn"};

    private final String name;
    /** Per partition, per script ({@link Script#ordinal()}), the keys it takes. */
    private final byte[][][][] keys;
    private final byte[] signalKey;

    /**
     * @param name       the queue's name
     * @param partitions how many partitions
     * @param cluster    whether the keys live in a Redis Cluster, where a script may only touch its own slot, so
     *                   only partition 0's scripts may push the signal themselves
     */
    KeyLayout(String name, int partitions, boolean cluster) {
        this.name = name;
        signalKey = key(name, 0, Key.SIGNAL);
        Script[] scripts = Script.values();
        keys = new byte[partitions][scripts.length][][];
        for (int p = 0; p < partitions; p++) {
            boolean withSignal = !cluster || p == 0;
            for (Script s : scripts) {
                List<Key> taken = s.keys();
                int n = taken.size() - (!withSignal && taken.contains(Key.SIGNAL) ? 1 : 0);
                byte[][] k = new byte[n][];
                for (int i = 0; i < n; i++) {
                    k[i] = key(name, p, taken.get(i));
                }
                keys[p][s.ordinal()] = k;
            }
        }
    }

    /**
     * @param script    the script
     * @param partition the partition
     * @return the keys the script takes ({@link Script#keys()}), the signal key only where the partition's scripts
     *         may touch it (on a standalone server, or partition 0 of a Cluster); a shared array: do not modify
     */
    byte[][] keys(Script script, int partition) {
        return keys[partition][script.ordinal()];
    }

    /**
     * @param key       which key
     * @param partition the partition (ignored for a {@linkplain Key#perQueue() per-queue} key)
     * @return the key's name
     */
    byte[] key(Key key, int partition) {
        return key(name, partition, key);
    }

    /** @return the key blocked pollers wait on */
    byte[] signalKey() {
        return signalKey;
    }

    /**
     * @param name      the queue's name
     * @param partition the partition (ignored for a {@linkplain Key#perQueue() per-queue} key)
     * @param key       which key
     * @return the key's name
     */
    static byte[] key(String name, int partition, Key key) {
        return bytes(prefix(name, key.perQueue() ? 0 : partition) + key.part());
    }

    /**
     * @param name the queue's name
     * @return the key of the queue's stored configuration (partition 0's slot)
     */
    static byte[] configKey(String name) {
        return key(name, 0, Key.CONFIG);
    }

    /**
     * @param name      the queue's name
     * @param partition the partition
     * @return the partition's sequence counter, created by its first offer
     */
    static byte[] seqKey(String name, int partition) {
        return key(name, partition, Key.SEQ);
    }

    /**
     * @param name      the queue's name
     * @param partition the partition
     * @return every fixed key the partition may have (not the compact store's chunks and index shards, which
     *         {@code cold_drop.lua} deletes), and for partition 0 the queue's signal and configuration keys, all
     *         in the partition's slot
     */
    static byte[][] allKeys(String name, int partition) {
        List<byte[]> k = new ArrayList<>();
        for (Key key : Key.values()) {
            if (key != Key.ORDER && key != Key.VALUES && (partition == 0 || !key.perQueue())) {
                k.add(key(name, partition, key));
            }
        }
        for (String part : NAMED_PARTS) {
            k.add(bytes(prefix(name, partition) + part));
        }
        return k.toArray(new byte[0][]);
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
