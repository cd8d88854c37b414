package io.clockwork.benchmarks.timer;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/** Constants and pre-generated inputs shared by the benchmarks and harnesses. Thread-safe (immutable). */
final class Workloads {

    /** A delay that never comes due during a run. */
    static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);
    /** Seed of every pre-generated random input, so runs are comparable. */
    static final long SEED = 0x5EED_C10C_C0FFEEL;

    private Workloads() {
    }

    /**
     * Schedules {@code count} timers that stay pending for the whole run, deadlines spread evenly over
     * [1 h, 2 h) so that no bucket of any rival holds them all.
     *
     * @param lane  the lane to schedule through
     * @param count how many
     */
    static void fillBackground(Lane lane, int count) {
        for (int i = 0; i < count; i++) {
            lane.scheduleDetached(HOUR_NANOS + HOUR_NANOS / count * i);
        }
    }

    /**
     * Draws delays uniformly from {@code [minNanos, maxNanos]}.
     *
     * @return {@code count} delays in nanoseconds
     */
    static long[] uniformDelays(int count, long minNanos, long maxNanos, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] delays = new long[count];
        for (int i = 0; i < count; i++) {
            delays[i] = random.nextLong(minNanos, maxNanos + 1);
        }
        return delays;
    }

    /**
     * Draws whole-millisecond delays uniformly from {@code [minMillis, maxMillis]}, in nanoseconds, so that rivals
     * whose API takes milliseconds get exactly the same deadlines.
     */
    static long[] uniformMillisDelays(int count, long minMillis, long maxMillis, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] delays = new long[count];
        for (int i = 0; i < count; i++) {
            delays[i] = TimeUnit.MILLISECONDS.toNanos(random.nextLong(minMillis, maxMillis + 1));
        }
        return delays;
    }

    /** @return {@code count} flags, each true with probability {@code p} */
    static boolean[] flags(int count, double p, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        boolean[] flags = new boolean[count];
        for (int i = 0; i < count; i++) {
            flags[i] = random.nextDouble() < p;
        }
        return flags;
    }
}
