package io.clockwork.cli.demo;

import java.time.Instant;

/**
 * Wall-clock time in microseconds since the epoch. Thread-safe.
 *
 * <p>Why the wall clock and not {@code System.nanoTime()}: on Redis, producer and workers may be different processes,
 * and a due time written into a message must mean the same instant to all of them. Lateness across machines is
 * therefore only as exact as their clock synchronisation.
 */
final class Wall {

    private Wall() {
    }

    /** @return now, in microseconds since the epoch */
    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
