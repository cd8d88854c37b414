package io.clockwork.zookeeper;

import io.clockwork.time.Ticker;
import java.util.Objects;

/**
 * The timeline of a ZooKeeper-style bucketed structure: the ticker's time in milliseconds, cut into fixed intervals,
 * and the next interval boundary its poller has yet to reach. Thread-safe: the fields are final but for
 * {@link #nextExpirationTime}, which only the poller writes (under its lock) and anyone reads.
 *
 * <p>Deadlines are rounded up to interval boundaries, {@code (t / interval + 1) * interval}: ZooKeeper's
 * {@code ExpiryQueue} rule. The boundaries are those of the ticker's own time ({@code floor(reading / 1,000,000)}
 * milliseconds, ZooKeeper's {@code Time.currentElapsedTime()} on the system ticker), not of the structure's creation,
 * so structures with one interval on one ticker share their boundaries, and something tracked just after creation
 * expires anywhere in {@code (timeout, timeout + interval]}, as in ZooKeeper. Internally times are <i>elapsed</i>
 * milliseconds since {@link #origin()}, the ticker reading of the last boundary at or before creation, taken by
 * wrap-safe subtraction, so they are never negative and a ticker that wraps around {@code Long.MAX_VALUE} is harmless;
 * {@link #timeAt} turns them into the ticker's milliseconds for callers. Every touch rounds, so rounding avoids a
 * division (see {@link #roundToNextInterval}).
 */
final class IntervalClock {

    static final long NANOS_PER_MILLI = 1_000_000L;
    /** Below this many milliseconds the reciprocal's quotient is off by at most one (2^52: 142,000 years). */
    private static final long EXACT_LIMIT_MS = 1L << 52;

    private final Ticker ticker;
    private final long origin;
    /** The ticker's time in milliseconds at {@link #origin}: a multiple of the interval. */
    private final long baseMs;
    private final long intervalMs;
    private final double reciprocal;
    private volatile long nextExpirationTime;

    /**
     * @param intervalMs the bucket width in milliseconds, at least 1
     * @param ticker     the time source; the last interval boundary of its time at or before now is the origin
     */
    IntervalClock(int intervalMs, Ticker ticker) {
        if (intervalMs < 1) {
            throw new IllegalArgumentException("expirationInterval must be at least 1 ms, was " + intervalMs);
        }
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        long reading = ticker.read();
        long intervalNanos = intervalMs * NANOS_PER_MILLI;
        long sinceBoundary = Math.floorMod(reading, intervalNanos);
        this.origin = reading - sinceBoundary; // may wrap: only differences of readings are used
        this.baseMs = Math.floorDiv(reading, NANOS_PER_MILLI) - sinceBoundary / NANOS_PER_MILLI;
        this.intervalMs = intervalMs;
        this.reciprocal = 1.0 / intervalMs;
        this.nextExpirationTime = roundToNextInterval(0L);
    }

    long intervalMillis() {
        return intervalMs;
    }

    /** The ticker's reading at elapsed time zero: an interval boundary. */
    long origin() {
        return origin;
    }

    /** The ticker's time in milliseconds at an elapsed time: the times callers see. */
    long timeAt(long elapsedMs) {
        return baseMs + elapsedMs;
    }

    /** The ticker's time in milliseconds now. */
    long currentTime() {
        return timeAt(nowMillis());
    }

    /** A raw ticker reading, for {@link #millisAt}. */
    long read() {
        return ticker.read();
    }

    /** Nanoseconds elapsed since the origin at a ticker reading; never negative. */
    long elapsedNanos(long reading) {
        return Math.max(0L, reading - origin);
    }

    /** Milliseconds elapsed since the origin at a ticker reading. */
    long millisAt(long reading) {
        return elapsedNanos(reading) / NANOS_PER_MILLI;
    }

    /** Milliseconds elapsed since the origin. */
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

    /** The ticker reading of the next boundary the poller has not reached (wrap-safe, like {@link #origin}). */
    long nextExpirationReading() {
        return origin + nextExpirationTime * NANOS_PER_MILLI;
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
}
