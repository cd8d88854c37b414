package io.clockwork.redis;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Generates the ids of messages offered without the caller's id. Thread-safe.
 *
 * <p>An id is a random 128-bit prefix, drawn once per generator (one per queue instance) from {@link SecureRandom},
 * then a per-generator counter: {@code <22 base64url chars>-<counter in base 36>}. Ids of distinct clients differ
 * by their prefixes (a collision among a billion clients has a chance of about 2^-68), ids of one client by their
 * counters. {@link java.util.UUID#randomUUID()} draws 16 bytes from a shared {@link SecureRandom} per id, under a
 * lock; at a hundred thousand offers a second that costs a noticeable share of a core.
 */
final class IdGenerator {

    private final String prefix;
    /** FNV-1a of the prefix's bytes, from which a candidate id's hash is finished over its counter digits. */
    private final int prefixHash;
    private final AtomicLong counter = new AtomicLong();

    IdGenerator() {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.prefix = Base64.getUrlEncoder().withoutPadding().encodeToString(random) + "-";
        int h = PartitionSelector.FNV_OFFSET;
        for (int i = 0; i < prefix.length(); i++) {
            h = PartitionSelector.mix(h, prefix.charAt(i)); // base64url and '-': one byte each in UTF-8
        }
        this.prefixHash = h;
    }

    /** @return a new id, at most 36 characters */
    String next() {
        return prefix + Long.toString(counter.incrementAndGet(), 36);
    }

    /**
     * A new id that hashes to the given partition ({@link PartitionSelector#partitionOf}), so that a batch of
     * generated ids lands in one partition: counter values are drawn until one fits (on average as many as there
     * are partitions), each tried by finishing the prefix's hash over its digits, without building a string.
     *
     * @param partition the partition, in [0, selector.count())
     * @param selector  the queue's id-to-partition map
     * @return a new id, at most 36 characters, with {@code selector.partitionOf(id) == partition}
     */
    String nextIn(int partition, PartitionSelector selector) {
        if (selector.count() == 1) {
            return next();
        }
        char[] digits = new char[13]; // a positive long in base 36 has at most 13 digits
        while (true) {
            long c = counter.incrementAndGet();
            int at = digits.length;
            do {
                digits[--at] = Character.forDigit((int) (c % 36), 36);
                c /= 36;
            } while (c > 0);
            int h = prefixHash;
            for (int i = at; i < digits.length; i++) {
                h = PartitionSelector.mix(h, digits[i]);
            }
            if (selector.partitionOfHash(h) == partition) {
                return prefix + new String(digits, at, digits.length - at);
            }
        }
    }
}
