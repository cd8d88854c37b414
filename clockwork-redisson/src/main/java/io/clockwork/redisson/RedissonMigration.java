package io.clockwork.redisson;

import io.clockwork.queue.QueueChecks;
import io.clockwork.redis.FaceStore;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Moves the elements of a live Redisson {@code RDelayedQueue} into a queue of the Redisson face
 * ({@link RedisRedisson}), keeping each element's due time and the delayed elements' offer order. Not thread-safe: one run at a time per
 * queue (two runs on one queue stay correct, each element moving once, but report partial counts).
 *
 * <p>Redisson keeps a delayed queue of destination {@code NAME} in {@code redisson_delay_queue_timeout:{NAME}} (a
 * sorted set of due times), {@code redisson_delay_queue:{NAME}} (a list in offer order) and the destination list
 * {@code NAME}. Each batch is one atomic script ({@code migrate_redisson.lua}) that removes what it files, so a run
 * cut off anywhere loses and doubles nothing, and running it again goes on from where it stopped. Redisson clients
 * may keep running meanwhile: what they offer later is moved by another run. Payloads move as Redisson encoded
 * them; read them with a codec for that encoding ({@code Codec.string()} for Redisson's {@code StringCodec},
 * {@code Codec.bytes()} for its {@code ByteArrayCodec}). Due times are Redisson's, set from its clients' clocks.
 */
public final class RedissonMigration {

    /** The largest batch: each batch is one script, which blocks the server while it runs. */
    public static final int MAX_BATCH = 10_000;

    /**
     * What a run found or did.
     *
     * @param due       elements of the destination list (already due): moved, or found by a dry run
     * @param delayed   elements not yet transferred by Redisson: moved, or found by a dry run
     * @param skipped   delayed-list entries whose element had already left Redisson's timeout set
     * @param remaining elements the Redisson keys still hold after the run (0 after a complete run)
     * @param batches   script calls made
     */
    public record Report(long due, long delayed, long skipped, long remaining, int batches) {
    }

    private RedissonMigration() {
    }

    /**
     * Counts what a migration would move, writing nothing.
     *
     * @param client the face client on the server holding the Redisson queue
     * @param from   the Redisson destination's name
     * @return the counts; {@code remaining} is their sum
     */
    public static Report dryRun(RedisRedisson client, String from) {
        byte[][] k = redissonKeys(from);
        long[] counts = client.store(from).redissonCounts(k);
        return new Report(counts[0], counts[1], 0, counts[0] + counts[1], 0);
    }

    /**
     * Moves every element of a Redisson delayed queue and its destination list into a face queue.
     *
     * @param client the face client on the server holding the Redisson queue
     * @param from   the Redisson destination's name
     * @param to     the face queue's name (may equal {@code from}: the key names differ)
     * @param batch  elements per script call, 1 to {@link #MAX_BATCH}
     * @return what moved
     * @throws IllegalArgumentException if {@code batch} is out of range or a name is invalid
     */
    public static Report run(RedisRedisson client, String from, String to, int batch) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        if (batch < 1 || batch > MAX_BATCH) {
            throw new IllegalArgumentException("batch must be 1 to " + MAX_BATCH + ", was " + batch);
        }
        byte[][] k = redissonKeys(from);
        FaceStore target = client.store(to);
        long due = 0;
        long delayed = 0;
        long skipped = 0;
        int batches = 0;
        while (true) {
            long[] r = target.migrateBatch(k, batch);
            batches++;
            due += r[0];
            delayed += r[1];
            skipped += r[2];
            if (r[0] + r[1] + r[2] == 0 || r[3] == 0) {
                return new Report(due, delayed, skipped, r[3], batches);
            }
        }
    }

    /** @return Redisson's timeout set, delayed list and destination list for a destination's name */
    static byte[][] redissonKeys(String name) {
        Objects.requireNonNull(name, "from");
        QueueChecks.checkWellFormed("from", name);
        String tagged = name.contains("{") ? name : "{" + name + "}";
        return new byte[][] {
            bytes("redisson_delay_queue_timeout:" + tagged),
            bytes("redisson_delay_queue:" + tagged),
            bytes(name),
        };
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
