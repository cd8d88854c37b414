package io.clockwork.time;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class NanosTest {

    @Test
    void durationsThatFitConvertExactly() {
        assertThat(Nanos.saturated(Duration.ofMillis(1500))).isEqualTo(1_500_000_000L);
        assertThat(Nanos.saturated(Duration.ofNanos(-7))).isEqualTo(-7L);
        assertThat(Nanos.saturated(Duration.ofNanos(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void durationsBeyondALongOfNanosSaturateAtItsEnds() {
        assertThat(Nanos.saturated(Duration.ofDays(365L * 1000))).isEqualTo(Long.MAX_VALUE);
        assertThat(Nanos.saturated(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
        assertThat(Nanos.saturated(Duration.ofSeconds(Long.MIN_VALUE))).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void waitsAreNeverNegativeAndAtMostHalfTheRange() {
        assertThat(Nanos.waitOf(Duration.ofMillis(-5))).isZero();
        assertThat(Nanos.waitOf(Duration.ofMillis(5))).isEqualTo(5_000_000L);
        assertThat(Nanos.waitOf(Duration.ofDays(365L * 1000))).isEqualTo(Long.MAX_VALUE / 2);
    }
}
