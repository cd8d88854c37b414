package io.clockwork.benchmarks.timer;

import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;

/**
 * Schedule+cancel pairs on one {@link Lane} for a given time, as {@link ScheduleCancelBenchmark} makes them: a 1 h
 * timer scheduled and cancelled at once. Not thread-safe: owned by the measuring thread.
 *
 * <p>{@link BusyJvmHarness} loads one copy of this class per rival, each in its own class loader, so that the JIT
 * profiles each rival's calls apart and inlines them as JMH's one-rival forks let it; that is why it is public, takes
 * only public types and is reached through {@link LongUnaryOperator}.
 */
public final class PairLoop implements LongUnaryOperator {

    private static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final int BATCH = 1024;

    private final Lane lane;
    /** Cancel results, kept so that the pairs are not dead code. */
    private long sink;

    /**
     * @param lane the lane to schedule and cancel through; slot 0 is used
     */
    public PairLoop(Lane lane) {
        this.lane = lane;
    }

    /**
     * Makes pairs, in batches of {@value #BATCH}, until {@code nanos} have passed.
     *
     * @param nanos how long to run
     * @return how many pairs were made
     */
    @Override
    public long applyAsLong(long nanos) {
        long start = System.nanoTime();
        long pairs = 0;
        long cancelled = 0;
        do {
            for (int i = 0; i < BATCH; i++) {
                lane.schedule(0, HOUR_NANOS);
                if (lane.cancel(0)) {
                    cancelled++;
                }
            }
            pairs += BATCH;
        } while (System.nanoTime() - start < nanos);
        sink += cancelled;
        return pairs;
    }

    @Override
    public String toString() {
        return "PairLoop[" + lane + ", " + sink + " cancelled]";
    }
}
