package io.clockwork.benchmarks.timer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The floor benchmark does what it says: reads a clock that does not go back, and each fresh handle's CAS wins. */
class TimerFloorBenchmarkTest {

    @Test
    void clockReadsDoNotGoBackAndEveryFreshHandlesCancelWins() {
        TimerFloorBenchmark floor = new TimerFloorBenchmark();
        long previous = floor.clockRead();
        for (int i = 0; i < 3_000; i++) {
            long now = floor.clockRead();
            assertThat(now - previous).isNotNegative();
            previous = now;
            assertThat(floor.clockAllocateCas()).isTrue();
        }
    }
}
