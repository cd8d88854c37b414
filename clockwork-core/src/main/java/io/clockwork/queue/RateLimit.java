package io.clockwork.queue;

import java.time.Duration;
import java.util.Objects;

/**
 * A limit on deliveries: at most {@code permits} in any {@code interval}. An immutable value, thread-safe; set on a
 * queue with {@link QueueOptions.Builder#rateLimit} (the queue as a whole) or
 * {@link QueueOptions.Builder#groupRateLimit} (each group key).
 *
 * <h2>Algorithm: a sliding log</h2>
 * A delivery at time {@code t} may go if fewer than {@code permits} deliveries under the same limit were made in
 * {@code (t - interval, t]}; otherwise it waits until the oldest of the last {@code permits} deliveries is
 * {@code interval} old, the moment its permit frees. So in every window of length {@code interval} (half open, on the
 * backend's clock) there are at most {@code permits} deliveries, and a burst of up to {@code permits} goes at once.
 * A delivery counts when a poll takes it: redeliveries count again; acks, nacks and expiries change nothing. The
 * state is the times of the last {@code permits} deliveries that are younger than {@code interval}. A limited
 * delivery is never dropped and never an error: it stays ready, and a poll that waits sleeps until the next permit
 * frees (tolerance: a poll takes it at its first look at or after that moment; in process time is the queue's
 * {@link io.clockwork.time.Ticker}, read in nanoseconds).
 *
 * @param permits  deliveries allowed per interval, in [1, {@value #MAX_PERMITS}]
 * @param interval the window, in [{@link #MIN_INTERVAL}, {@link #MAX_INTERVAL}]
 */
public record RateLimit(int permits, Duration interval) {

    /** Most permits per interval: 1,000,000. */
    public static final int MAX_PERMITS = 1_000_000;
    /** Shortest interval: 1 ms. */
    public static final Duration MIN_INTERVAL = Duration.ofMillis(1);
    /** Longest interval: 1 day. */
    public static final Duration MAX_INTERVAL = Duration.ofDays(1);

    /**
     * Validates the limit.
     *
     * @throws NullPointerException     if {@code interval} is null
     * @throws IllegalArgumentException naming {@code permits} or {@code interval} and its range if out of range
     */
    public RateLimit {
        Objects.requireNonNull(interval, "interval");
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException("permits must be in [1, " + MAX_PERMITS + "], was " + permits);
        }
        if (interval.compareTo(MIN_INTERVAL) < 0 || interval.compareTo(MAX_INTERVAL) > 0) {
            throw new IllegalArgumentException("interval must be in [" + MIN_INTERVAL + ", " + MAX_INTERVAL
                    + "], was " + interval);
        }
    }
}
