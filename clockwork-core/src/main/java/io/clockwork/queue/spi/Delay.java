package io.clockwork.queue.spi;

import io.clockwork.queue.DelayedQueue;
import io.clockwork.queue.QueueChecks;
import java.time.Duration;

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
        QueueChecks.checkDelay(delay);
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
}
