package io.clockwork.zookeeper;

import io.clockwork.time.ManualTicker;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

import static org.assertj.core.api.Assertions.assertThat;

/** The reciprocal rounding of {@link IntervalClock} against ZooKeeper's formula, on both sides of its exact range. */
class IntervalClockRoundingProperties {

    @Property(tries = 2000)
    void roundsUpToTheNextIntervalBoundaryExactly(@ForAll @IntRange(min = 1, max = Integer.MAX_VALUE) int interval,
                                                   @ForAll @LongRange(min = 0, max = 1L << 60) long timeMs) {
        IntervalClock clock = new IntervalClock(interval, new ManualTicker());
        assertThat(clock.roundToNextInterval(timeMs)).isEqualTo((timeMs / interval + 1) * interval);
    }

    @Property(tries = 2000)
    void isExactAtAndAroundBoundaries(@ForAll @IntRange(min = 1, max = 100_000) int interval,
                                      @ForAll @LongRange(min = 0, max = 1L << 40) long k,
                                      @ForAll @IntRange(min = -1, max = 1) int offset) {
        long timeMs = Math.max(0, k * interval + offset);
        IntervalClock clock = new IntervalClock(interval, new ManualTicker());
        assertThat(clock.roundToNextInterval(timeMs)).isEqualTo((timeMs / interval + 1) * interval);
    }
}
