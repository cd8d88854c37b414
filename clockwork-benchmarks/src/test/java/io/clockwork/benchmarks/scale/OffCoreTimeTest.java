package io.clockwork.benchmarks.scale;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link OffCoreTime} on a thread that keeps its core: intervals of busy work must not read as time off core. With
 * the running time taken from schedstat's first field, which advances only at the thread's scheduler ticks, an
 * interval shorter than a tick read the whole interval (or nothing) as off core, so the median of many such
 * intervals was most of an interval.
 */
class OffCoreTimeTest {

    private static final int INTERVALS = 400;
    private static final long INTERVAL_NANOS = 1_000_000L;

    @Test
    void busyIntervalsShorterThanASchedulerTickAreNotReadAsTimeOffCore() {
        OffCoreTime time = OffCoreTime.openForThisThread();
        assumeTrue(time != null, "no /proc/thread-self/schedstat or thread CPU clock here");
        try (time) {
            long[] offCore = new long[INTERVALS];
            long sink = 0;
            for (int i = 0; i < INTERVALS; i++) {
                long end = System.nanoTime() + INTERVAL_NANOS;
                while (System.nanoTime() - end < 0) {
                    sink += i; // busy: never blocks
                }
                offCore[i] = time.mark();
            }
            assertThat(sink).isNotNegative();
            Arrays.sort(offCore);
            assertThat(offCore[INTERVALS / 2]).as("median time off core of a 1 ms busy interval, ns")
                    .isLessThan(INTERVAL_NANOS / 4);
            assertThat(offCore[0]).isNotNegative();
        }
    }
}
