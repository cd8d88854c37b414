package io.clockwork.queue.spi;

import io.clockwork.queue.DelayedQueue;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * A delay the queue contract accepts, checked once and kept in the two units the backends count in: whole
 * nanoseconds for an in-process clock, whole milliseconds, rounded up so nothing is early, for a server's. Immutable
 * and thread-safe.
 *
 * @param nanos  the delay in nanoseconds, in [0, {@link Long#MAX_VALUE}]: negative delays are 0, and delays above
 *               about 292 years saturate
 * @param millis the delay in milliseconds, rounded up, in [0, 2^52]: exact up to {@link DelayedQueue#MAX_DELAY}
 */
public record Delay(long nanos, long millis) {

    /** Due now. */
    public static final Delay NONE = new Delay(0, 0);

    /**
     * Checks a delay against {@link DelayedQueue#MAX_DELAY}.
     *
     * @param delay the delay; zero or negative means due now
     * @return the checked delay
     * @throws NullPointerException     if null
     * @throws IllegalArgumentException if it exceeds {@link DelayedQueue#MAX_DELAY}
     */
    public static Delay of(Duration delay) {
        Objects.requireNonNull(delay, "delay");
        if (delay.compareTo(DelayedQueue.MAX_DELAY) > 0) {
            throw tooLong(delay.toString());
        }
        if (delay.isNegative() || delay.isZero()) {
            return NONE;
        }
        long millis = delay.toMillis() + (delay.toNanosPart() % 1_000_000 > 0 ? 1 : 0);
        long nanos;
        try {
            nanos = delay.toNanos();
        } catch (ArithmeticException beyondLong) {
            nanos = Long.MAX_VALUE;
        }
        return new Delay(nanos, millis);
    }

    /**
     * Converts a {@code long, TimeUnit} delay into the {@link Duration} the queue's methods take, for the
     * {@code long, TimeUnit} overloads. It compares in {@code unit} first, so amounts too large for a
     * {@code Duration} fail with the same error as any delay above {@link DelayedQueue#MAX_DELAY}, never with an
     * {@link ArithmeticException}; negative amounts below {@code -MAX_DELAY} become {@code -MAX_DELAY}, which means
     * "due now" like any negative delay.
     *
     * @param delay the amount
     * @param unit  its unit
     * @return the delay, in [{@code -MAX_DELAY}, {@code MAX_DELAY}]
     * @throws NullPointerException     if {@code unit} is null
     * @throws IllegalArgumentException if the delay exceeds {@link DelayedQueue#MAX_DELAY}
     */
    public static Duration durationOf(long delay, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        // MAX_DELAY in whole units, rounded down (saturated at Long.MAX_VALUE for nanoseconds): a larger amount is
        // above MAX_DELAY, and an amount within +/- this bound converts to a Duration without overflow.
        long max = unit.convert(DelayedQueue.MAX_DELAY);
        if (delay > max) {
            throw tooLong(delay + " " + unit);
        }
        if (delay < -max) {
            return DelayedQueue.MAX_DELAY.negated();
        }
        return Duration.of(delay, unit.toChronoUnit());
    }

    private static IllegalArgumentException tooLong(String given) {
        return new IllegalArgumentException("delay must be at most " + DelayedQueue.MAX_DELAY.toMillis()
                + " ms (DelayedQueue.MAX_DELAY, 2^52 ms: due times are exact doubles), was " + given);
    }
}
