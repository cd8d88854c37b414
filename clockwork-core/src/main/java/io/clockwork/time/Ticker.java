package io.clockwork.time;

/**
 * A source of monotonic time in nanoseconds; every time-dependent Clockwork class reads time only through one.
 * Implementations must be thread-safe.
 *
 * <p>Values are meaningful only as differences: compare two readings as {@code a - b < 0}, never {@code a < b},
 * so that the timeline may start anywhere, including near {@link Long#MAX_VALUE}, and wrap safely.
 * Production code uses {@link #system()}; tests drive a {@link ManualTicker}.
 *
 * <p>A ticker is also the one seam through which a test drives Clockwork's threads: a thread that sleeps until a
 * reading (a timer's driver, a consumer blocked in a queue's {@code poll}) registers with {@link #watch(Runnable)},
 * and a ticker whose time can jump (a {@link ManualTicker}) calls it after every jump, so the sleeper wakes and reads
 * the time again instead of sleeping out a real-time delay computed from an older reading.
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
     * Registers an action to run whenever this ticker's reading jumps, that is, moves other than with real time.
     * The system ticker never jumps, so the default registers nothing; {@link ManualTicker} runs the action on the
     * advancing thread after every {@code advance}.
     *
     * @param onJump a quick action that must not throw (it typically unparks a sleeping thread)
     * @return the registration; {@link Watch#close() close} it when the sleeper goes away
     */
    default Watch watch(Runnable onJump) {
        java.util.Objects.requireNonNull(onJump, "onJump");
        return Watch.NONE;
    }

    /** A registration made by {@link #watch(Runnable)}. Thread-safe. */
    @FunctionalInterface
    interface Watch extends AutoCloseable {

        /** The registration of a ticker that never jumps: closing it does nothing. */
        Watch NONE = () -> { };

        /** Removes the action; idempotent. */
        @Override
        void close();
    }

    /**
     * Returns the ticker backed by {@link System#nanoTime()}.
     *
     * @return the system ticker, a thread-safe singleton
     */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}
