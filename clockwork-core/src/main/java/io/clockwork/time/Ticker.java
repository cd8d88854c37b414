package io.clockwork.time;

/**
 * A source of monotonic time in nanoseconds; every time-dependent Clockwork class reads time only through one.
 * Implementations must be thread-safe.
 *
 * <p>Values are meaningful only as differences: compare two readings as {@code a - b < 0}, never {@code a < b},
 * so that the timeline may start anywhere, including near {@link Long#MAX_VALUE}, and wrap safely.
 * Production code uses {@link #system()}; tests drive a {@link ManualTicker}.
 */
@FunctionalInterface
public interface Ticker {

    /**
     * Returns the current reading in nanoseconds on this ticker's timeline.
     *
     * @return nanoseconds; only differences between readings are meaningful
     */
    long read();

    /**
     * Returns the ticker backed by {@link System#nanoTime()}.
     *
     * @return the system ticker, a thread-safe singleton
     */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}
