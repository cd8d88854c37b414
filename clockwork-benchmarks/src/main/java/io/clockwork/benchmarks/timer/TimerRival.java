package io.clockwork.benchmarks.timer;

/**
 * One timer implementation under test, behind the few operations the benchmarks need. Thread-safe as far as the
 * timer itself is: {@link #lane} may be called from any thread, each {@link Lane} belongs to one thread.
 *
 * <p>Adapters are thin on purpose: each operation is one call into the rival's public API, so the figures measure
 * the rival, not the adapter. Every JMH parameter value runs in its own forked JVM, so each adapter call site is
 * monomorphic in the measured code.
 */
public abstract class TimerRival implements AutoCloseable {

    private final String name;

    TimerRival(String name) {
        this.name = name;
    }

    /** @return the name used in {@code -p timer=...} and in the result tables */
    public final String name() {
        return name;
    }

    /**
     * Tells whether all lanes share one timer. A rival that is not thread-safe (Agrona's wheel) gives each lane a
     * timer of its own, driven by that lane's thread, and its background timers must go into each lane.
     *
     * @return true if lanes share one timer
     */
    public boolean shared() {
        return true;
    }

    /**
     * Opens a producer's view of the timer.
     *
     * @param capacity how many handles the lane keeps, in slots {@code [0, capacity)}
     * @return a lane for the calling thread
     */
    public abstract Lane lane(int capacity);

    /** @return timers the rival reports as pending, or -1 if it cannot tell */
    public abstract long pending();

    /** Stops the timer and its threads; pending timers are dropped. */
    @Override
    public abstract void close();

    @Override
    public String toString() {
        return name;
    }
}
