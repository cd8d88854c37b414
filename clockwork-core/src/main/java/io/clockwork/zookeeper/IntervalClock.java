package io.clockwork.zookeeper;

import io.clockwork.time.Ticker;
import java.util.Objects;

/**
 * The timeline of a ZooKeeper-style bucketed structure: milliseconds since its creation, cut into fixed intervals,
 * and the next interval boundary its poller has yet to reach. Thread-safe: the fields are final but for
 * {@link #nextExpirationTime}, which only the poller writes (under its lock) and anyone reads.
 *
 * <p>Deadlines are rounded up to interval boundaries, {@code (t / interval + 1) * interval} milliseconds since the
 * origin: ZooKeeper's {@code ExpiryQueue} rule. Every touch computes it, so it avoids a division (see
 * {@link #roundToNextInterval}).
 */
final class IntervalClock {

    static final long NANOS_PER_MILLI = 1_000_000L;
    /** Below this many milliseconds the reciprocal's quotient is off by at most one (2^52: 142,000 years). */
    private static final long EXACT_LIMIT_MS = 1L << 52;

    private final Ticker ticker;
    private final long origin;
    private final long intervalMs;
    private final double reciprocal;
    private volatile long nextExpirationTime;

    /**
     * @param intervalMs the bucket width in milliseconds, at least 1
     * @param ticker     the time source; its reading now is the origin
     */
    IntervalClock(int intervalMs, Ticker ticker) {
        if (intervalMs < 1) {
            throw new IllegalArgumentException("expirationInterval must be at least 1 ms, was " + intervalMs);
        }
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.origin = ticker.read();
        this.intervalMs = intervalMs;
        this.reciprocal = 1.0 / intervalMs;
        this.nextExpirationTime = roundToNextInterval(0L);
    }

    long intervalMillis() {
        return intervalMs;
    }

    /** The ticker's reading at this timeline's zero. */
    long origin() {
        return origin;
    }

    /** A raw ticker reading, for {@link #millisAt}. */
    long read() {
        return ticker.read();
    }

    /** Nanoseconds since the origin at a ticker reading; never negative. */
    long elapsedNanos(long reading) {
        return Math.max(0L, reading - origin);
    }

    /** Milliseconds since the origin at a ticker reading. */
    long millisAt(long reading) {
        return elapsedNanos(reading) / NANOS_PER_MILLI;
    }

    /** Milliseconds since the origin. */
    long nowMillis() {
        return millisAt(ticker.read());
    }

    /**
     * {@code (timeMs / interval + 1) * interval} for {@code timeMs >= 0}. A 64-bit division by a value the JIT cannot
     * fold takes tens of cycles; a multiplication by the interval's reciprocal gives the quotient within one (doubles
     * carry 53 bits and {@code timeMs} stays far below 2^52 ms), and one multiply-and-compare corrects it.
     */
    long roundToNextInterval(long timeMs) {
        if (timeMs >= EXACT_LIMIT_MS) {
            return (timeMs / intervalMs + 1) * intervalMs;
        }
        long q = (long) (timeMs * reciprocal);
        long r = timeMs - q * intervalMs;
        if (r < 0) {
            q--;
        } else if (r >= intervalMs) {
            q++;
        }
        return (q + 1) * intervalMs;
    }

    /** The expiry time of something touched now with the given timeout. */
    long expiryAfter(int timeoutMs) {
        return roundToNextInterval(nowMillis() + timeoutMs);
    }

    /** The next boundary the poller has not reached. */
    long nextExpirationTime() {
        return nextExpirationTime;
    }

    /** Records that the poller has handled every boundary up to {@code nowMs}. Poller only. */
    void reached(long nowMs) {
        nextExpirationTime = roundToNextInterval(nowMs);
    }

    /** Milliseconds until the next boundary is due, or 0 if it has passed (ZooKeeper's getWaitTime). */
    long waitTimeMillis() {
        long now = nowMillis();
        long next = nextExpirationTime;
        return now < next ? next - now : 0L;
    }

    /** Like {@link #waitTimeMillis()} in nanoseconds, for threads that park until the next boundary. */
    long waitTimeNanos() {
        long now = elapsedNanos(ticker.read());
        long next = nextExpirationTime * NANOS_PER_MILLI;
        return now < next ? next - now : 0L;
    }
}
