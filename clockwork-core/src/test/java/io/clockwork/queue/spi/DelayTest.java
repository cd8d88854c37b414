package io.clockwork.queue.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.clockwork.queue.DelayedQueue;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DelayTest {

    @Test
    void keepsNanosecondsAndMillisecondsRoundedUp() {
        assertThat(Delay.of(Duration.ofNanos(1))).isEqualTo(new Delay(1, 1));
        assertThat(Delay.of(Duration.ofMillis(5))).isEqualTo(new Delay(5_000_000, 5));
        assertThat(Delay.of(Duration.ofMillis(5).plusNanos(1))).isEqualTo(new Delay(5_000_001, 6));
    }

    @Test
    void zeroAndNegativeAreDueNow() {
        assertThat(Delay.of(Duration.ZERO)).isEqualTo(Delay.NONE);
        assertThat(Delay.of(Duration.ofDays(-3))).isEqualTo(Delay.NONE);
    }

    @Test
    void theLongestDelaySaturatesNanosecondsButKeepsExactMilliseconds() {
        Delay max = Delay.of(DelayedQueue.MAX_DELAY);
        assertThat(max.millis()).isEqualTo(1L << 52);
        assertThat(max.nanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aDelayAboveTheMaximumIsRefusedWithTheLimit() {
        assertThatThrownBy(() -> Delay.of(DelayedQueue.MAX_DELAY.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay must be at most " + (1L << 52) + " ms (DelayedQueue.MAX_DELAY");
        assertThatThrownBy(() -> Delay.of(null)).isInstanceOf(NullPointerException.class).hasMessage("delay");
    }
}
