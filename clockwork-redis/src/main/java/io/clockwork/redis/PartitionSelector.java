package io.clockwork.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Maps message ids to partitions and spreads consumers over them. Thread-safe.
 *
 * <p>The id-to-partition map must be the same in every client and every version, because deduplication, cancel,
 * reschedule and ack find a message only in the partition its id hashes to: it is FNV-1a (32 bits) over the id's
 * UTF-8 bytes, modulo the partition count, never {@code String.hashCode} of some JVM. Consumers start their polls at
 * the next partition in turn (every few polls), so that with a backlog everywhere no partition starves.
 */
final class PartitionSelector {

    private static final int FNV_OFFSET = 0x811c9dc5;
    private static final int FNV_PRIME = 0x01000193;
    /** How many consecutive polls start at the same partition. */
    static final int STRIDE = 8;

    private final int partitions;
    private final AtomicInteger next = new AtomicInteger();

    /** @param partitions how many partitions, at least 1 */
    PartitionSelector(int partitions) {
        this.partitions = partitions;
    }

    /**
     * @param id a message id
     * @return its partition, in [0, partitions)
     */
    int partitionOf(String id) {
        if (partitions == 1) {
            return 0;
        }
        int hash = FNV_OFFSET;
        for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
            hash = (hash ^ (b & 0xff)) * FNV_PRIME;
        }
        return Integer.remainderUnsigned(hash, partitions);
    }

    /**
     * @return the partition a poll starts at: round robin, moving on every {@value #STRIDE} polls, so that pollers
     *         arriving together start at (and move on through) the same partitions and their polls share script
     *         calls (group commit), while with a backlog everywhere every partition still gets its turn
     */
    int nextStart() {
        return Math.floorMod(next.getAndIncrement() / STRIDE, partitions);
    }
}
