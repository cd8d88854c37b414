package io.clockwork.postgres;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Generates the ids of messages offered without the caller's id: a random 128-bit prefix drawn once per queue client
 * (22 base64url characters and {@code '-'}), then the client's counter in base 36. Ids of distinct clients differ by
 * their prefixes, ids of one client by their counters; no round trip and no shared lock per id. Thread-safe.
 */
final class Ids {

    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    Ids() {
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.prefix = Base64.getUrlEncoder().withoutPadding().encodeToString(random) + "-";
    }

    /** @return a new id, at most 36 ASCII characters */
    String next() {
        return prefix + Long.toString(counter.incrementAndGet(), 36);
    }
}
