package io.clockwork.time;

import java.time.Duration;

/**
 * Durations as the {@code long} nanoseconds every {@link Ticker} computation uses. Stateless; thread-safe.
 *
 * <p>A {@link Duration} spans about 292 billion years, a {@code long} of nanoseconds about 292 years, so converting
 * one to the other saturates instead of throwing: a delay too long to count in nanoseconds is "forever", which is what
 * a caller who passes {@code Duration.ofDays(Long.MAX_VALUE / 86_400)} means.
 */
public final class Nanos {

    private Nanos() {
    }

    /**
     * Converts a duration to nanoseconds, saturating at the ends of {@code long}.
     *
     * @param d a duration
     * @return {@code d.toNanos()}, or {@link Long#MAX_VALUE} ({@link Long#MIN_VALUE} if negative) where that overflows
     */
    public static long saturated(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /**
     * Converts a duration to nanoseconds for a wait: negative durations wait for nothing, and the longest wait is
     * half of {@code long}'s range, so that adding it to a ticker reading stays comparable by subtraction.
     *
     * @param d a duration
     * @return nanoseconds in {@code [0, Long.MAX_VALUE / 2]}
     */
    public static long waitOf(Duration d) {
        return Math.min(Long.MAX_VALUE / 2, Math.max(0L, saturated(d)));
    }
}
