package io.clockwork.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class QueueChecksTest {

    @Test
    void durationOfComparesInTheGivenUnitSoHugeAmountsFailCleanly() {
        assertThat(QueueChecks.durationOf(3, TimeUnit.SECONDS)).isEqualTo(Duration.of(3, ChronoUnit.SECONDS));
        assertThatThrownBy(() -> QueueChecks.durationOf(Long.MAX_VALUE, TimeUnit.DAYS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DelayedQueue.MAX_DELAY");
        assertThat(QueueChecks.durationOf(Long.MIN_VALUE, TimeUnit.DAYS)).isEqualTo(DelayedQueue.MAX_DELAY.negated());
    }

    @Test
    void aDelayAboveTheMaximumIsRefusedWithTheLimitAndNullIsNamed() {
        assertThat(QueueChecks.checkDelay(DelayedQueue.MAX_DELAY)).isEqualTo(DelayedQueue.MAX_DELAY);
        assertThatThrownBy(() -> QueueChecks.checkDelay(DelayedQueue.MAX_DELAY.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("delay must be at most " + (1L << 52) + " ms (DelayedQueue.MAX_DELAY");
        assertThatThrownBy(() -> QueueChecks.checkDelay(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("delay");
    }

    @Test
    void utf8LengthCountsBytesOrPointsAtTheFirstUnpairedSurrogate() {
        assertThat(QueueChecks.utf8Length("a\u00e9\u20ac\uD83D\uDE00")).isEqualTo(1 + 2 + 3 + 4);
        assertThat(QueueChecks.utf8Length("ab\uDC00")).isEqualTo(-3);
        assertThatThrownBy(() -> QueueChecks.checkWellFormed("name", "a\uD800b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("name must be well-formed Unicode, which round-trips through UTF-8; it has an unpaired"
                        + " surrogate U+D800 at index 1");
    }
}
