package io.clockwork.postgres;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Generates the ids of messages offered without the caller's id: a random 128-bit prefix drawn once per queue client
 * (22 base64url characters), then the number of digits of the client's counter (one base-36 digit) and the counter
 * in base 36. Ids of distinct clients differ by their prefixes, ids of one client by their counters; no round trip and
 * no shared lock per id. With its length first, a counter sorts as text in the order it counts ({@code "12"} after
 * {@code "z"}), so one client's messages sit side by side in the primary key, in offer order: an offer adds to the
 * index's right end and a batch of takes or acks reads a few adjacent index pages, where ids in no order would read
 * a page per message once the index outgrows the server's buffers. Thread-safe.
 */
final class Ids {

    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    Ids() {
        this(0);
    }

    /** @param counted the counter's start: the first id counts {@code counted + 1} */
    Ids(long counted) {
        this.counter.set(counted);
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.prefix = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /** @return a new id, 24 to 36 ASCII characters, sorting after every id this instance made before */
    String next() {
        String digits = Long.toString(counter.incrementAndGet(), 36);
        return prefix + Character.forDigit(digits.length(), 36) + digits;
    }
}
