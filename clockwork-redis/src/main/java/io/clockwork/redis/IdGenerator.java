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
    private final AtomicLong counter = new AtomicLong();

    IdGenerator() {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.prefix = Base64.getUrlEncoder().withoutPadding().encodeToString(random) + "-";
    }

    /** @return a new id, at most 36 characters */
    String next() {
        return prefix + Long.toString(counter.incrementAndGet(), 36);
    }
}
