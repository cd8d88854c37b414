package io.clockwork.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Maps message ids to partitions and spreads consumers over them. Thread-safe.
 *
 * <p>The id-to-partition map must be the same in every client and every version, because deduplication, cancel,
 * reschedule and ack find a message only in the partition its id hashes to: it is FNV-1a (32 bits) over the id's
 * UTF-8 bytes (a placed id's over its client part, the id it was offered with: {@link IdGenerator#clientPartLength}),
 * modulo the partition count, never {@code String.hashCode} of some JVM. Consumers start their polls at the next
 * partition in turn (every few polls), so that with a backlog everywhere no partition starves.
 */
final class PartitionSelector {

    /** FNV-1a's starting value: the hash of no bytes. */
    static final int FNV_OFFSET = 0x811c9dc5;
    private static final int FNV_PRIME = 0x01000193;
    /** How many consecutive polls start at the same partition. */
    static final int STRIDE = 8;

    private final int partitions;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger nextBatch = new AtomicInteger(ThreadLocalRandom.current().nextInt());
    private final AtomicInteger nextTarget = new AtomicInteger(ThreadLocalRandom.current().nextInt());

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
        int clientPart = IdGenerator.clientPartLength(id);
        if (clientPart > 0) {
            id = id.substring(0, clientPart);
        }
        int hash = FNV_OFFSET;
        for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
            hash = mix(hash, b & 0xff);
        }
        return partitionOfHash(hash);
    }

    /** @return FNV-1a's hash after one more byte (0-255): what {@link #partitionOf} folds over an id's bytes */
    static int mix(int hash, int b) {
        return (hash ^ b) * FNV_PRIME;
    }

    /** @return the partition of an id whose whole FNV-1a hash is {@code hash} */
    int partitionOfHash(int hash) {
        return Integer.remainderUnsigned(hash, partitions);
    }

    /** @return how many partitions */
    int count() {
        return partitions;
    }

    /**
     * @return the partition for the next batch of messages whose ids this client generates: round robin from a
     *         random start per client, so a batch costs one script call on one partition (its ids are chosen to
     *         hash there, see {@link IdGenerator#nextIn}) and the partitions still fill evenly
     */
    int nextBatchTarget() {
        return Math.floorMod(nextTarget.getAndIncrement(), partitions);
    }

    /**
     * @return the partition a poll starts at: round robin, moving on every {@value #STRIDE} polls, so that pollers
     *         arriving together start at (and move on through) the same partitions and their polls share script
     *         calls (group commit), while with a backlog everywhere every partition still gets its turn
     */
    int nextStart() {
        return Math.floorMod(next.getAndIncrement() / STRIDE, partitions);
    }

    /**
     * @return the partition a batch poll starts at: round robin, moving on every poll (a batch poll takes as much as
     *         it may from its first partition, so batch pollers starting together at one partition would all load
     *         the same master)
     */
    int nextBatchStart() {
        return Math.floorMod(nextBatch.getAndIncrement(), partitions);
    }
}
